import {
  AppError,
  buildPage,
  escapeRegex,
  isAdmin,
  nextId,
  nickNamesOf,
  pageWindow,
  sanitizeBody,
  sanitizeStoredBodies,
  type AuthClaims,
  type Logger,
  type PageObject,
  type PageRequest,
} from '@binzip/shared';
import type { FilterQuery, SortOrder } from 'mongoose';
import type { BoardDoc, CommunityModels } from '../models';
import { CategoriesByPrefix, isBoardPrefix, prefixesOf, type BoardPrefix, type PreviewPrefix } from './categories';
import { oneLineOf, plainTextOf } from './text';
import { boardItem, commentItem, ownBoardItem, type BoardDetail, type BoardItem, type OwnBoardItem } from './views';

export interface BoardInput {
  title: string;
  code: string;
  /** Already normalised: null/absent became EMPTY. */
  category: string;
  imageUrls: string[];
  prefixCategory: BoardPrefix;
  fixed: boolean;
}

export type BoardOrder = 'RECENT' | 'POPULAR';

const LIVE = { deleted: false } as const;

/** Pinned posts lead every list; ties go to the newest (the id breaks equal timestamps). */
const SORTS: Record<BoardOrder | 'PREVIEW', Record<string, SortOrder>> = {
  RECENT: { fixed: -1, createdAt: -1, _id: -1 },
  POPULAR: { fixed: -1, loveCount: -1, createdAt: -1, _id: -1 },
  PREVIEW: { fixed: -1, loveCount: -1, createdAt: -1, _id: -1 },
};

const OWN_SORT: Record<string, SortOrder> = { createdAt: -1, _id: -1 };

/** A board that exists and is not deleted, or C0001. */
export async function liveBoard(models: CommunityModels, boardId: number): Promise<BoardDoc> {
  const board = await models.Board.findOne({ _id: boardId, ...LIVE })
    .lean<BoardDoc>()
    .exec();
  if (!board) throw AppError.notFound();
  return board;
}

/** Only administrators pin, and only promotion posts. */
function pinned(user: AuthClaims, input: BoardInput): boolean {
  return input.fixed && input.prefixCategory === 'ADVERTISEMENT' && isAdmin(user);
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
export async function sanitizeStoredBoards(models: CommunityModels, logger: Logger): Promise<void> {
  await sanitizeStoredBodies<BoardDoc>({ model: models.Board, field: 'code', derive: (clean) => bodyFields(clean), logger });
}

function contentFields(user: AuthClaims, input: BoardInput) {
  // The length limit applied to what was sent (route schema); a body with nothing left once cleaned is no body.
  const code = sanitizeBody(input.code);
  if (code.trim() === '') throw AppError.invalid('code 값이 올바르지 않습니다.');
  return {
    title: input.title,
    ...bodyFields(code),
    imageUrls: input.imageUrls,
    category: input.category,
    prefixCategory: input.prefixCategory,
    fixed: pinned(user, input),
  };
}

export async function createBoard(models: CommunityModels, user: AuthClaims, input: BoardInput): Promise<number> {
  const id = await nextId(models.connection, 'board');
  const now = new Date();
  await models.Board.create({
    _id: id,
    ...contentFields(user, input),
    authorId: user.userId,
    loveCount: 0,
    commentCount: 0,
    deleted: false,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

export async function updateBoard(models: CommunityModels, user: AuthClaims, boardId: number, input: BoardInput): Promise<number> {
  const board = await liveBoard(models, boardId);
  if (board.authorId !== user.userId) throw AppError.forbidden();
  const result = await models.Board.updateOne({ _id: boardId, ...LIVE }, { $set: { ...contentFields(user, input), updatedAt: new Date() } }).exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  return boardId;
}

export async function deleteBoard(models: CommunityModels, user: AuthClaims, boardId: number): Promise<void> {
  const board = await liveBoard(models, boardId);
  if (board.authorId !== user.userId && !isAdmin(user)) throw AppError.forbidden();
  const result = await models.Board.updateOne({ _id: boardId, ...LIVE }, { $set: { deleted: true, updatedAt: new Date() } }).exec();
  if (result.modifiedCount === 0) throw AppError.notFound();
  await hideFromOwnLists(models, [boardId]);
}

/** Marks comments and loves of deleted boards so the callers' own lists skip them. */
export async function hideFromOwnLists(models: CommunityModels, boardIds: number[]): Promise<void> {
  if (boardIds.length === 0) return;
  const filter = { boardId: { $in: boardIds } };
  await Promise.all([
    models.Comment.updateMany(filter, { $set: { boardDeleted: true } }).exec(),
    models.Love.updateMany(filter, { $set: { boardDeleted: true } }).exec(),
  ]);
}

async function withNickNames(models: CommunityModels, boards: BoardDoc[]): Promise<BoardItem[]> {
  const nickNames = await nickNamesOf(
    models.User,
    boards.map((b) => b.authorId),
  );
  return boards.map((board) => boardItem(board, nickNames));
}

export async function previewBoards(models: CommunityModels, query: { prefix: PreviewPrefix; limit: number; category?: string }): Promise<BoardItem[]> {
  const prefixes = prefixesOf(query.prefix);
  const filter: FilterQuery<BoardDoc> = { ...LIVE, prefixCategory: prefixes.length === 1 ? prefixes[0] : { $in: prefixes } };
  if (query.category !== undefined) filter.category = query.category;
  const boards = await models.Board.find(filter).sort(SORTS.PREVIEW).limit(query.limit).lean<BoardDoc[]>().exec();
  return withNickNames(models, boards);
}

export interface BoardListQuery extends PageRequest {
  prefix: BoardPrefix;
  category?: string;
  search?: string;
  order: BoardOrder;
}

export async function listBoards(models: CommunityModels, query: BoardListQuery): Promise<PageObject<BoardItem>> {
  const filter: FilterQuery<BoardDoc> = { ...LIVE, prefixCategory: query.prefix };
  if (query.category !== undefined) filter.category = query.category;
  if (query.search !== undefined) {
    const pattern = { $regex: escapeRegex(query.search), $options: 'i' };
    filter.$or = [{ title: pattern }, { plainText: pattern }];
  }
  const { skip, limit } = pageWindow(query);
  const [boards, total] = await Promise.all([
    models.Board.find(filter).sort(SORTS[query.order]).skip(skip).limit(limit).lean<BoardDoc[]>().exec(),
    models.Board.countDocuments(filter).exec(),
  ]);
  return buildPage(await withNickNames(models, boards), query, total);
}

export async function boardDetail(models: CommunityModels, boardId: number): Promise<BoardDetail> {
  const board = await liveBoard(models, boardId);
  const comments = await models.Comment.find({ boardId, deleted: false }, { pendingEvents: 0 }).sort({ _id: 1 }).lean().exec();
  const nickNames = await nickNamesOf(models.User, [board.authorId, ...comments.map((c) => c.authorId)]);
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

/** Categories of a board type; an unknown type has none. */
export function categoriesOf(name: string): Array<{ code: string; name: string }> {
  return isBoardPrefix(name) ? CategoriesByPrefix[name].map((c) => ({ code: c.code, name: c.name })) : [];
}

export async function myBoards(models: CommunityModels, user: AuthClaims, request: PageRequest): Promise<PageObject<OwnBoardItem>> {
  const filter = { authorId: user.userId, ...LIVE };
  const { skip, limit } = pageWindow(request);
  const [boards, total] = await Promise.all([
    models.Board.find(filter).sort(OWN_SORT).skip(skip).limit(limit).lean<BoardDoc[]>().exec(),
    models.Board.countDocuments(filter).exec(),
  ]);
  return buildPage(boards.map(ownBoardItem), request, total);
}

/**
 * Live boards by id. A board found deleted here although a comment or love still pointed at it as live
 * (the delete stopped between its two writes) is repaired on the spot.
 */
export async function liveBoardsById(models: CommunityModels, ids: number[]): Promise<Map<number, BoardDoc>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const boards = await models.Board.find({ _id: { $in: unique }, ...LIVE })
    .lean<BoardDoc[]>()
    .exec();
  const byId = new Map(boards.map((b) => [b._id, b]));
  await hideFromOwnLists(
    models,
    unique.filter((id) => !byId.has(id)),
  );
  return byId;
}

export async function myLovedBoards(models: CommunityModels, user: AuthClaims, request: PageRequest): Promise<PageObject<OwnBoardItem>> {
  const filter = { userId: user.userId, boardDeleted: false };
  const { skip, limit } = pageWindow(request);
  const [loves, total] = await Promise.all([
    models.Love.find(filter).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(limit).lean().exec(),
    models.Love.countDocuments(filter).exec(),
  ]);
  const boards = await liveBoardsById(
    models,
    loves.map((l) => l.boardId),
  );
  const items = loves.flatMap((love) => {
    const board = boards.get(love.boardId);
    return board ? [ownBoardItem(board)] : [];
  });
  return buildPage(items, request, total);
}
