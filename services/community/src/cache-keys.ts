import { type CacheEventSubject, type CacheKeys, type CacheLifetime, type PageObject } from '@binzip/shared';
import { communityCommentCreated } from '@binzip/events';
import { prefixOfBoard } from './domain/boards';
import { placeOfComment } from './domain/comments';
import type { CommunityContext } from './domain/context';
import type { BoardItem } from './domain/render';
import { prefixesOf, type BoardPrefix, type PreviewPrefix } from './domain/vocabulary';

/**
 * What community's cached answers show, as the response cache's keys (docs/decisions-local.md, "Response cache"):
 *
 * - `board:<id>`: everything any answer shows of one board; its detail depends on it whole. Other answers show
 *   only parts of it (`<whole>/<part>`, `KEY_PART_SEPARATOR`: a change of the whole changes every part, a change
 *   of a part changes the whole and no other part):
 *   - `board:<id>/listed`: what its list items show (title, body, picture, category, `fixed`, author,
 *     `commentCount`; no love count): board lists, previews, a member's own lists;
 *   - `board:<id>/comments`: its comment list;
 *   - `board:<id>/loves`: its love count, which only its detail shows (and, through the love order, which boards
 *     a love-ordered page holds).
 * - `love-order:<prefixCategory>`: the order of one board type's boards by love count (`SORTS` in
 *   domain/boards.ts: lists ordered POPULAR and every preview sort by `loveCount` after `fixed`), and its parts
 *   `love-order:<prefixCategory>/<count>`, where the boards with that many loves are in it (`loveOrderKeys`).
 *
 * An answer depends on every board it shows (the part it shows) and, when ordered by loves, on the love order of
 * each board type it covers. Which boards a list holds, how many, and their order otherwise (`fixed`, `createdAt`, the search in
 * title and body) change only with the board writes (create, edit, delete, pin) and the pictures', which declare
 * nothing and so forget every answer, as do nickname changes (the user projection announces no keys).
 *
 * - `author:<userId>`, `commenter:<userId>`, `lover:<userId>`: which boards one member's own lists hold (kept per
 *   member: /boards/my, /boards/my/comment, /boards/my/love), and how many.
 *
 * A comment created, edited or deleted on board X changes X's comment list, its detail and the `commentCount`
 * of its list items, and nothing a public list filters or orders by: `board:X`; and its author's list of
 * comments: `commenter:<author>`. A love or unlove of X by U changes X's `loveCount` (its detail only: no list shows it),
 * the order of X's type by loves where X left and where it went and U's loved boards: `board:X/loves`,
 * `love-order:<X's type>/<c>` and `/<c±1>`, `lover:U`; so a love keeps the RECENT lists and every comment list,
 * and a love-ordered page only when it shows no board with c or c±1 loves. A member's own list depends on
 * his key and on every board it shows; his posts change only with the board writes, which forget everything.
 */
/**
 * How long community's answers are kept (`CacheLifetime`). Board lists, previews, details, comment lists and a
 * member's own lists show boards, comments, love counts and nicknames, and each of those changes only where a
 * change is announced: community's writes (each forgets the keys above on every instance, or everything), the
 * `community.comment.created` events (`commentCreatedEvents`), the user projection once it stored a nickname.
 * Nothing in them changes with time alone. So they are kept until such a change forgets them, and 10 s at most (the
 * original site kept its list pages 10 s without forgetting): the bound on what nobody announced, a partition
 * between NATS servers, an edit outside the API, or a read repairing a board deleted half-way
 * (`hideFromOwnLists`, which changes other members' own-list totals unannounced).
 */
export const BOARD_ANSWERS: CacheLifetime = { name: 'boards', ttlMs: 10_000 };

/** The board-type categories never change while the process runs. */
export const BOARD_CATEGORIES: CacheLifetime = { name: 'categories', ttlMs: 60_000 };

export const boardKey = (boardId: number): string => `board:${boardId}`;
/** What a board's list items show of it (a part of `boardKey`). */
export const listedBoardKey = (boardId: number): string => `${boardKey(boardId)}/listed`;
/** A board's comment list (a part of `boardKey`). */
export const boardCommentsKey = (boardId: number): string => `${boardKey(boardId)}/comments`;
/** A board's love count (a part of `boardKey`). */
export const boardLovesKey = (boardId: number): string => `${boardKey(boardId)}/loves`;
export const loveOrderKey = (prefix: string): string => `love-order:${prefix}`;
/** The boards of one type with `count` loves, where the love order of the type is (a part of `loveOrderKey`). */
export const loveCountKey = (prefix: string, count: number): string => `${loveOrderKey(prefix)}/${count}`;

/**
 * What a love-ordered page depends on of the love order of the types it covers: the love counts of the boards it
 * shows (`loveCountKey`), or the whole order when they are not known. A love moving X from c to c' loves moves X
 * past boards with between c and c' loves only (the order is `fixed`, `loveCount`, then time and id), and a page
 * that any of those positions fall in shows, before the move, X or one of those boards: a board with c or c'
 * loves, of X's type or of another type the page covers (a preview covers two), so every covered type's key of
 * every count shown is named. An empty page stays empty: a love changes no total.
 */
function loveOrderKeys(prefixes: readonly string[], counts: readonly number[] | undefined): string[] {
  if (counts === undefined) return prefixes.map(loveOrderKey);
  const distinct = [...new Set(counts)];
  return prefixes.flatMap((prefix) => distinct.map((count) => loveCountKey(prefix, count)));
}
export const authorKey = (userId: number): string => `author:${userId}`;
export const commenterKey = (userId: number): string => `commenter:${userId}`;
export const loverKey = (userId: number): string => `lover:${userId}`;

/** A member's own list: his key (`authorKey`, `commenterKey`, `loverKey`) and every board it shows, as listed. */
export function ownListKeys(memberKey: string, page: PageObject<{ boardId: number }>): CacheKeys {
  return [memberKey, ...page.content.map((item) => listedBoardKey(item.boardId))];
}

/**
 * A comment created, edited or deleted: its board (whole: its detail, comment list and the `commentCount` of its
 * list items) and its author's list of comments.
 */
export const commentKeys = (boardId: number, authorId: number): CacheKeys => [boardKey(boardId), commenterKey(authorId)];

/** A page of a board list: its boards, and the love order of its type when ordered POPULAR (`loveOrderKeys`). */
export function boardListKeys(
  query: { prefix: BoardPrefix; order: 'RECENT' | 'POPULAR' },
  page: PageObject<BoardItem>,
  loveCounts?: readonly number[],
): CacheKeys {
  const keys = page.content.map((board) => listedBoardKey(board.boardId));
  if (query.order === 'POPULAR') keys.push(...loveOrderKeys([query.prefix], loveCounts));
  return keys;
}

/** A preview (always ordered by loves): its boards and the love order of every type it covers (`loveOrderKeys`). */
export function previewKeys(query: { prefix: PreviewPrefix }, boards: readonly BoardItem[], loveCounts?: readonly number[]): CacheKeys {
  return [...boards.map((board) => listedBoardKey(board.boardId)), ...loveOrderKeys(prefixesOf(query.prefix), loveCounts)];
}

/**
 * A love or unlove of a board by `loverId`: its love count, the love order where it moved from and to (as the
 * write itself read and changed it, `BoardTypeSeen`; else the whole order of its type), the lover's loved boards;
 * a board that cannot be found (it always can, after a success) changes everything.
 */
export async function loveKeys(
  ctx: CommunityContext,
  boardId: number,
  loverId: number,
  seen?: { prefixCategory: string; from: number; to: number },
): Promise<CacheKeys | undefined> {
  if (seen) return [boardLovesKey(boardId), loveCountKey(seen.prefixCategory, seen.from), loveCountKey(seen.prefixCategory, seen.to), loverKey(loverId)];
  const prefix = await prefixOfBoard(ctx, boardId);
  return prefix === undefined ? undefined : [boardLovesKey(boardId), loveOrderKey(prefix), loverKey(loverId)];
}

/**
 * A deleted comment: the path names only the comment, and an administrator may delete another member's, so its
 * board and author are looked up.
 */
export async function commentDeletionKeys(ctx: CommunityContext, commentId: number): Promise<CacheKeys | undefined> {
  const place = await placeOfComment(ctx, commentId);
  return place === undefined ? undefined : commentKeys(place.boardId, place.authorId);
}

/**
 * The name of the change a new comment is, given by its write and by its `community.comment.created` event alike,
 * so the event, arriving after the write announced it, forgets nothing more.
 */
export const commentCreatedChange = (commentId: number): string => `comment-created:${commentId}`;

/** `community.comment.created`, which the cache listens to (main.ts): the comment's board and its author's list. */
export const commentCreatedEvents: CacheEventSubject = {
  subject: communityCommentCreated.filter,
  changes: (payload) => {
    const event = communityCommentCreated.schema.parse(payload);
    return commentKeys(event.boardId, event.commenterId);
  },
  changeId: (payload) => commentCreatedChange(communityCommentCreated.schema.parse(payload).commentId),
};
