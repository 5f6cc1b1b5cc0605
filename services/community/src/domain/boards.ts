import {
  AppError,
  auditEvent,
  buildPage,
  escapeRegex,
  isAdmin,
  nextId,
  nickNamesOf,
  pageWindow,
  rowsAndTotal,
  sanitizeBody,
  sanitizeStoredBodies,
  storedCollection,
  type AuthClaims,
  type PageObject,
  type PageRequest,
  invalidField,
} from '@binzip/shared';
import type { FilterQuery, mongo } from 'mongoose';
import type { BoardDoc, CommentDoc } from '../models';
import { CategoriesByPrefix, categoryFits, categoryOrEmpty, isBoardPrefix, prefixesOf, type BoardPrefix, type PreviewPrefix } from './vocabulary';
import type { CommunityContext } from './context';
import { writeIfPinRoom } from './pinning';
import { oneLineOf, plainTextOf } from './text';
import {
  boardItem,
  commentItem,
  LISTED_BOARD_FIELDS,
  OWN_LISTED_BOARD_FIELDS,
  ownBoardItem,
  type BoardCategory,
  type BoardDetail,
  type BoardItem,
  type ListedBoard,
  type OwnBoardItem,
  type OwnListedBoard,
} from './render';

export interface BoardInput {
  title: string;
  code: string;
  /** null or absent: no category (stored as EMPTY). */
  category?: string | null;
  imageUrls: string[];
  prefixCategory: BoardPrefix;
  fixed: boolean;
}

export type BoardOrder = 'RECENT' | 'POPULAR';

const LIVE = { deleted: false } as const;

/** Pinned posts lead every list; ties go to the newest (the id breaks equal timestamps). */
const SORTS: Record<BoardOrder | 'PREVIEW', Record<string, 1 | -1>> = {
  RECENT: { fixed: -1, createdAt: -1, _id: -1 },
  POPULAR: { fixed: -1, loveCount: -1, createdAt: -1, _id: -1 },
  PREVIEW: { fixed: -1, loveCount: -1, createdAt: -1, _id: -1 },
};

const OWN_SORT: Record<string, 1 | -1> = { createdAt: -1, _id: -1 };

/** A board that exists and is not deleted, or C0001. */
export async function liveBoard(ctx: CommunityContext, boardId: number): Promise<BoardDoc> {
  const board = await ctx.models.boards
    .findOne({ _id: boardId, ...LIVE })
    .lean<BoardDoc>()
    .exec();
  if (!board) throw AppError.notFound();
  return board;
}

/** A board's type (prefixCategory), whatever its state; undefined for no such board. */
export async function prefixOfBoard(ctx: CommunityContext, boardId: number): Promise<string | undefined> {
  const board = await ctx.models.boards.findById(boardId, { prefixCategory: 1 }).lean().exec();
  return board?.prefixCategory;
}

/** Only administrators pin, and only promotion posts (anyone else's `fixed` is quietly ignored). */
function pinned(user: AuthClaims, input: BoardInput): boolean {
  return input.fixed && input.prefixCategory === 'ADVERTISEMENT' && isAdmin(user);
}

/** A category filter or a post's category that can never match the board type is a client mistake. */
function assertCategoryFits(category: string | undefined, prefixes: readonly BoardPrefix[]): void {
  if (category !== undefined && !categoryFits(category, prefixes)) throw invalidField('category', '값이 게시판 종류에 맞지 않습니다.');
}

/** What is stored for a body: the sanitized HTML and the summaries derived from it (never from what was sent). */
export function bodyFields(code: string): { code: string; plainText: string; oneLineContent: string } {
  const plainText = plainTextOf(code);
  return { code, plainText, oneLineContent: oneLineOf(plainText) };
}

/**
 * Boards stored before bodies were sanitized are cleaned once at start (decisions-local.md): a migration rather
 * than cleaning on read, so lists, search and every reader see the same safe body at no per-request cost.
 */
export async function sanitizeStoredBoards(ctx: CommunityContext): Promise<void> {
  await sanitizeStoredBodies<BoardDoc>({ model: ctx.models.boards, field: 'code', derive: (clean) => bodyFields(clean), logger: ctx.logger });
}

/** A post's category: none is EMPTY (fits every board type); any other must belong to the post's board type. */
function checkedCategory(input: BoardInput): string {
  const category = categoryOrEmpty(input.category);
  assertCategoryFits(category, [input.prefixCategory]);
  return category;
}

function contentFields(user: AuthClaims, input: BoardInput, category: string) {
  // The length limit applied to what was sent (route schema); a body with nothing left once cleaned is no body.
  const code = sanitizeBody(input.code);
  if (code.trim() === '') throw invalidField('code');
  return {
    title: input.title,
    ...bodyFields(code),
    imageUrls: input.imageUrls,
    category,
    prefixCategory: input.prefixCategory,
    fixed: pinned(user, input),
  };
}

/**
 * An administrator's promotion post may be written pinned (`fixed: true`), within the same limit of 10 as the
 * back office's pin: with no slot left nothing is written (B0001); racing writes take the free slots one at a
 * time under the pin lease, so exactly the free slots are given.
 */
export async function createBoard(ctx: CommunityContext, user: AuthClaims, input: BoardInput): Promise<number> {
  const content = contentFields(user, input, checkedCategory(input));
  const id = await nextId(ctx.models.boards.db, 'board');
  const now = ctx.now();
  const write = () =>
    ctx.models.boards.create({
      _id: id,
      ...content,
      authorId: user.userId,
      loveCount: 0,
      commentCount: 0,
      deleted: false,
      createdAt: now,
      updatedAt: now,
    });
  await (content.fixed ? writeIfPinRoom(ctx, write) : write());
  return id;
}

export async function updateBoard(ctx: CommunityContext, user: AuthClaims, input: BoardInput & { boardId: number }): Promise<number> {
  const { boardId } = input;
  const category = checkedCategory(input);
  const board = await liveBoard(ctx, boardId);
  if (board.authorId !== user.userId) throw AppError.forbidden();
  const content = contentFields(user, input, category);
  const newlyPinned = content.fixed && !board.fixed;
  const write = async () => {
    const result = await ctx.models.boards.updateOne({ _id: boardId, ...LIVE }, { $set: { ...content, updatedAt: ctx.now() } }).exec();
    if (result.matchedCount === 0) throw AppError.notFound();
  };
  await (newlyPinned ? writeIfPinRoom(ctx, write) : write());
  return boardId;
}

export async function deleteBoard(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }): Promise<void> {
  const { boardId } = input;
  const board = await liveBoard(ctx, boardId);
  if (board.authorId !== user.userId && !isAdmin(user)) throw AppError.forbidden();
  // An administrator deleting someone else's post is a moderation action: its audit entry goes with the write.
  const byModerator = board.authorId !== user.userId;
  const now = ctx.now();
  const audit = byModerator
    ? { $push: { pendingEvents: auditEvent('community', user, { action: 'DELETE', targetType: 'BOARD', targetId: boardId, memberId: board.authorId }, now) } }
    : {};
  const result = await ctx.models.boards.updateOne({ _id: boardId, ...LIVE }, { $set: { deleted: true, updatedAt: now }, ...audit }).exec();
  if (result.modifiedCount === 0) throw AppError.notFound();
  if (byModerator) ctx.eventsPending();
  await hideFromOwnLists(ctx, [boardId]);
}

/** Marks comments and loves of deleted boards so the callers' own lists skip them. */
export async function hideFromOwnLists(ctx: CommunityContext, boardIds: number[]): Promise<void> {
  if (boardIds.length === 0) return;
  const filter = { boardId: { $in: boardIds } };
  await Promise.all([
    ctx.models.comments.updateMany(filter, { $set: { boardDeleted: true } }).exec(),
    ctx.models.loves.updateMany(filter, { $set: { boardDeleted: true } }).exec(),
  ]);
}

async function withNickNames(ctx: CommunityContext, boards: ListedBoard[]): Promise<BoardItem[]> {
  const nickNames = await nickNamesOf(
    ctx.models.users,
    boards.map((b) => b.authorId),
  );
  return boards.map((board) => boardItem(board, nickNames));
}

export interface PreviewQuery {
  prefix: PreviewPrefix;
  limit: number;
  category?: string;
}

/** The love counts of the boards an answer shows, in its order (the cache's love-order keys: no answer shows them). */
export type LoveCountsSeen = (loveCounts: number[]) => void;

export async function previewBoards(ctx: CommunityContext, query: PreviewQuery, seen?: LoveCountsSeen): Promise<BoardItem[]> {
  // The spec takes `category` only with the INTRO preview; elsewhere it would silently change the result.
  if (query.category !== undefined && query.prefix !== 'INTRO') throw invalidField('category', '값은 게시판 종류가 INTRO일 때만 사용할 수 있습니다.');
  const prefixes = prefixesOf(query.prefix);
  assertCategoryFits(query.category, prefixes);
  const filter: FilterQuery<BoardDoc> = { ...LIVE, prefixCategory: prefixes.length === 1 ? prefixes[0] : { $in: prefixes } };
  if (query.category !== undefined) filter.category = query.category;
  const boards = await storedCollection(ctx.models.boards)
    .find<ListedBoard>(filter as mongo.Filter<BoardDoc>, { projection: LISTED_BOARD_FIELDS, sort: SORTS.PREVIEW, limit: query.limit })
    .toArray();
  seen?.(boards.map((board) => board.loveCount));
  return withNickNames(ctx, boards);
}

export interface BoardListQuery extends PageRequest {
  prefix: BoardPrefix;
  category?: string;
  search?: string;
  order: BoardOrder;
}

export async function listBoards(ctx: CommunityContext, query: BoardListQuery, seen?: LoveCountsSeen): Promise<PageObject<BoardItem>> {
  assertCategoryFits(query.category, [query.prefix]);
  const filter: FilterQuery<BoardDoc> = { ...LIVE, prefixCategory: query.prefix };
  if (query.category !== undefined) filter.category = query.category;
  if (query.search !== undefined) {
    const pattern = { $regex: escapeRegex(query.search), $options: 'i' };
    filter.$or = [{ title: pattern }, { plainText: pattern }];
  }
  const { skip, limit } = pageWindow(query);
  const boards = storedCollection(ctx.models.boards);
  const where = filter as mongo.Filter<BoardDoc>;
  const [listed, total] = await Promise.all([
    boards.find<ListedBoard>(where, { projection: LISTED_BOARD_FIELDS, sort: SORTS[query.order], skip, limit }).toArray(),
    boards.countDocuments(where),
  ]);
  seen?.(listed.map((board) => board.loveCount));
  return buildPage(await withNickNames(ctx, listed), query, total);
}

export async function boardDetail(ctx: CommunityContext, input: { boardId: number }): Promise<BoardDetail> {
  const { boardId } = input;
  // One round trip for both: the comments of a post that turns out not to be live are simply dropped.
  const [board, comments] = await Promise.all([liveBoard(ctx, boardId), boardComments(ctx, boardId)]);
  const nickNames = await nickNamesOf(ctx.models.users, [board.authorId, ...comments.map((c) => c.authorId)]);
  const item = boardItem(board, nickNames);
  return {
    boardId: item.boardId,
    title: item.title,
    code: item.code,
    nickName: item.nickName,
    createdAt: item.createdAt,
    imageUrls: board.imageUrls,
    loveCount: board.loveCount,
    category: item.category,
    prefixCategory: item.prefixCategory,
    commentCount: board.commentCount,
    comments: comments.map((comment) => commentItem(comment, nickNames)),
  };
}

/**
 * A board's live comments, oldest first, without their outbox. This read and the lists' and previews' go to the
 * driver's collection (`storedCollection`): lean reads whose filters are already in their stored types.
 */
export function boardComments(ctx: CommunityContext, boardId: number): Promise<CommentDoc[]> {
  return storedCollection(ctx.models.comments)
    .find({ boardId, deleted: false }, { projection: { pendingEvents: 0 }, sort: { _id: 1 } })
    .toArray();
}

/** Categories of a board type; an unknown type has none. */
export function categoriesOf(input: { name: string }): BoardCategory[] {
  const { name } = input;
  return isBoardPrefix(name) ? CategoriesByPrefix[name].map((c) => ({ code: c.code, name: c.name })) : [];
}

export async function myBoards(ctx: CommunityContext, user: AuthClaims, request: PageRequest): Promise<PageObject<OwnBoardItem>> {
  const filter = { authorId: user.userId, ...LIVE };
  const { skip, limit } = pageWindow(request);
  const { rows: boards, total } = await rowsAndTotal(
    { skip, limit },
    () => ctx.models.boards.find(filter, OWN_LISTED_BOARD_FIELDS).sort(OWN_SORT).skip(skip).limit(limit).lean<OwnListedBoard[]>().exec(),
    () => ctx.models.boards.countDocuments(filter).exec(),
  );
  return buildPage(boards.map(ownBoardItem), request, total);
}

/**
 * Live boards by id. A board found deleted here although a comment or love still pointed at it as live
 * (the delete stopped between its two writes) is repaired on the spot.
 */
export async function liveBoardsById(ctx: CommunityContext, ids: number[]): Promise<Map<number, OwnListedBoard>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const boards = await ctx.models.boards
    .find({ _id: { $in: unique }, ...LIVE }, OWN_LISTED_BOARD_FIELDS)
    .lean<OwnListedBoard[]>()
    .exec();
  const byId = new Map(boards.map((b) => [b._id, b]));
  await hideFromOwnLists(
    ctx,
    unique.filter((id) => !byId.has(id)),
  );
  return byId;
}

export async function myLovedBoards(ctx: CommunityContext, user: AuthClaims, request: PageRequest): Promise<PageObject<OwnBoardItem>> {
  const filter = { userId: user.userId, boardDeleted: false };
  const { skip, limit } = pageWindow(request);
  const { rows: loves, total } = await rowsAndTotal(
    { skip, limit },
    () => ctx.models.loves.find(filter).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(limit).lean().exec(),
    () => ctx.models.loves.countDocuments(filter).exec(),
  );
  const boards = await liveBoardsById(
    ctx,
    loves.map((l) => l.boardId),
  );
  const items = loves.flatMap((love) => {
    const board = boards.get(love.boardId);
    return board ? [ownBoardItem(board)] : [];
  });
  return buildPage(items, request, total);
}
