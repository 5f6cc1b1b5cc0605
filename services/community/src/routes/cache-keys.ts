import { communityCommentCreated, type CacheEventSubject, type CacheKeys, type PageObject } from '@binzip/shared';
import { prefixOfBoard } from '../domain/boards';
import { boardOfComment } from '../domain/comments';
import type { CommunityContext } from '../domain/context';
import type { BoardItem } from '../domain/render';
import { prefixesOf, type BoardPrefix, type PreviewPrefix } from '../domain/vocabulary';

/**
 * What community's cached answers show, as the response cache's keys (docs/decisions-local.md, "Response cache"):
 *
 * - `board:<id>`: what any answer shows of one board: its list item (with `commentCount`), its detail (with
 *   `loveCount` and the comments), its comment list.
 * - `love-order:<prefixCategory>`: the order of one board type's boards by love count (`SORTS` in
 *   domain/boards.ts: lists ordered POPULAR and every preview sort by `loveCount` after `fixed`).
 *
 * An answer depends on every board it shows and, when ordered by loves, on the love order of each board type it
 * covers. Which boards a list holds, how many, and their order otherwise (`fixed`, `createdAt`, the search in
 * title and body) change only with the board writes (create, edit, delete, pin) and the pictures', which declare
 * nothing and so forget every answer, as do nickname changes (the user projection announces no keys).
 *
 * A comment created, edited or deleted on board X changes X's comment list, its detail and the `commentCount`
 * of its list items, and nothing a list filters or orders by: `board:X`. A love or unlove of X changes X's
 * `loveCount` (its detail) and the order of X's type by loves: `board:X`, `love-order:<X's type>`.
 */
export const boardKey = (boardId: number): string => `board:${boardId}`;
export const loveOrderKey = (prefix: string): string => `love-order:${prefix}`;

/** A page of a board list: its boards, and the love order of its type when ordered POPULAR. */
export function boardListKeys(query: { prefix: BoardPrefix; order: 'RECENT' | 'POPULAR' }, page: PageObject<BoardItem>): CacheKeys {
  const keys = page.content.map((board) => boardKey(board.boardId));
  if (query.order === 'POPULAR') keys.push(loveOrderKey(query.prefix));
  return keys;
}

/** A preview (always ordered by loves): its boards and the love order of every type it covers. */
export function previewKeys(query: { prefix: PreviewPrefix }, boards: readonly BoardItem[]): CacheKeys {
  return [...boards.map((board) => boardKey(board.boardId)), ...prefixesOf(query.prefix).map(loveOrderKey)];
}

/** A love or unlove of a board; a board that cannot be found (it always can, after a success) changes everything. */
export async function loveKeys(ctx: CommunityContext, boardId: number): Promise<CacheKeys | undefined> {
  const prefix = await prefixOfBoard(ctx, boardId);
  return prefix === undefined ? undefined : [boardKey(boardId), loveOrderKey(prefix)];
}

/** A deleted comment changes its board; the path names only the comment, so its board is looked up. */
export async function commentDeletionKeys(ctx: CommunityContext, commentId: number): Promise<CacheKeys | undefined> {
  const boardId = await boardOfComment(ctx, commentId);
  return boardId === undefined ? undefined : [boardKey(boardId)];
}

/** `community.comment.created`, which the cache listens to (main.ts): the comment's board. */
export const commentCreatedEvents: CacheEventSubject = {
  subject: communityCommentCreated.filter,
  changes: (payload) => [boardKey(communityCommentCreated.schema.parse(payload).boardId)],
};
