import {
  AppError,
  auditEvent,
  buildPage,
  isDuplicateKeyError,
  nickNameIn,
  nickNamesOf,
  pageWindow,
  toIsoOffset,
  type AuthClaims,
  type PageObject,
  type PageRequest,
  type SortOrder,
} from '@binzip/shared';
import type { BoardDoc, BoardReportDoc, BoardReportType } from '../models';
import { hideFromOwnLists } from './boards';
import type { CommunityContext } from './context';

/**
 * Reports on posts (issue 40), kept as houses keeps the listing reports: one per member and post, an
 * administrators' queue of one item per reported post, a decision (DISMISS or REMOVE with an optional note) that
 * closes the reports made up to it, and each reporter reading what became of theirs. Unlike a listing, a reported
 * post stays public until an administrator decides: the spec's hiding rule is the listings' alone.
 */

export const BoardReportTypeNames: Record<BoardReportType, string> = { ADVERTISING_BOARD: '스팸게시글/광고', ABUSE: '욕설/비방', ETC: '기타' };
export const BoardReportStatuses = ['OPEN', 'CLOSED'] as const;
export type BoardReportStatus = (typeof BoardReportStatuses)[number];
export const BoardReportActions = ['DISMISS', 'REMOVE'] as const;
export type BoardReportAction = (typeof BoardReportActions)[number];

export interface BoardReportInput {
  boardId: number;
  reportType: BoardReportType;
  reportReason: string;
}

/** Marks the post open for the administrators; `$max` keeps the latest report's time whatever the order of writes. */
async function markReportOpen(ctx: CommunityContext, boardId: number, reportedAt: Date): Promise<void> {
  await ctx.models.boards.updateOne({ _id: boardId }, { $set: { reportStatus: 'OPEN' }, $max: { lastReportedAt: reportedAt } }).exec();
}

/** A member reports a live post, not their own (H0001), once (H0003: the same codes and words as a listing's). */
export async function reportBoard(ctx: CommunityContext, caller: AuthClaims, input: BoardReportInput): Promise<void> {
  const { boardId, reportType, reportReason } = input;
  const board = await ctx.models.boards.findOne({ _id: boardId, deleted: false }, { authorId: 1 }).lean().exec();
  if (!board) throw AppError.notFound();
  if (board.authorId === caller.userId) throw new AppError('H0001');
  const createdAt = ctx.now();
  let duplicate = false;
  try {
    await ctx.models.boardReports.create({ boardId, userId: caller.userId, reportType, reportReason, createdAt });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    duplicate = true;
  }
  // The repeat of a report whose first attempt stopped before this point still opens the post for the administrators.
  const stored = duplicate ? await ctx.models.boardReports.findOne({ boardId, userId: caller.userId }).lean().exec() : { createdAt, closedAt: null };
  if (stored && !stored.closedAt) await markReportOpen(ctx, boardId, stored.createdAt);
  if (duplicate) throw new AppError('H0003');
}

export interface AdminBoardReportItem {
  boardId: number;
  title: string;
  prefixCategory: string;
  authorId: number;
  nickName: string;
  /** The author deleted the post while its reports were open: a decision only closes them. */
  deleted: boolean;
  reportCount: number;
  lastReportedAt: string | null;
  status: BoardReportStatus;
  note: string | null;
  reports: Array<{ reportType: BoardReportType; reportTypeName: string; reportReason: string; reporterNickName: string; createdAt: string }>;
}

export interface BoardReportListQuery extends PageRequest {
  status: BoardReportStatus;
  sort?: SortOrder<'lastReportedAt'>;
}

/** One item per reported post, by the latest report's time (newest first unless asked otherwise). */
export async function listBoardReports(ctx: CommunityContext, query: BoardReportListQuery): Promise<PageObject<AdminBoardReportItem>> {
  const { models } = ctx;
  const { status, sort, ...request } = query;
  const direction = sort?.direction ?? -1;
  const filter = { reportStatus: status };
  const { skip, limit } = pageWindow(request);
  const [boards, total] = await Promise.all([
    models.boards
      .find(filter, { title: 1, prefixCategory: 1, authorId: 1, deleted: 1, lastReportedAt: 1, moderation: 1 })
      .sort({ lastReportedAt: direction, _id: direction })
      .skip(skip)
      .limit(limit)
      .lean<BoardDoc[]>()
      .exec(),
    models.boards.countDocuments(filter).exec(),
  ]);
  const reports = await models.boardReports
    .find({ boardId: { $in: boards.map((b) => b._id) }, closedAt: status === 'OPEN' ? null : { $ne: null } })
    .sort({ createdAt: -1, _id: -1 })
    .lean<BoardReportDoc[]>()
    .exec();
  const nickNames = await nickNamesOf(models.users, [...boards.map((b) => b.authorId), ...reports.map((r) => r.userId)]);
  const nickName = (id: number) => nickNameIn(nickNames, id);
  const items = boards.map((board) => {
    const own = reports.filter((r) => r.boardId === board._id);
    return {
      boardId: board._id,
      title: board.title,
      prefixCategory: board.prefixCategory,
      authorId: board.authorId,
      nickName: nickName(board.authorId),
      deleted: board.deleted,
      reportCount: own.length,
      lastReportedAt: board.lastReportedAt ? toIsoOffset(board.lastReportedAt) : null,
      status,
      note: status === 'CLOSED' ? (board.moderation?.note ?? null) : null,
      reports: own.map((r) => ({
        reportType: r.reportType,
        reportTypeName: BoardReportTypeNames[r.reportType] ?? r.reportType,
        reportReason: r.reportReason,
        reporterNickName: nickName(r.userId),
        createdAt: toIsoOffset(r.createdAt),
      })),
    };
  });
  return buildPage(items, request, total);
}

/**
 * DISMISS closes the post's open reports (it stays as it is); REMOVE deletes the post as an administrator's
 * deletion does and closes them. C0001 when the post has no open report. The audit entry (DISMISS or REMOVE on the
 * BOARD, the note as its reason) goes in the post's write; the note is kept on each report the decision closes, for
 * the reporter. Only the reports made up to the decision are closed: a later one opens the post again.
 */
export async function decideBoardReport(
  ctx: CommunityContext,
  admin: AuthClaims,
  input: { boardId: number; action: BoardReportAction; note?: string },
): Promise<number> {
  const { boardId, action } = input;
  const note = input.note || null;
  const board = await ctx.models.boards.findOne({ _id: boardId, reportStatus: 'OPEN' }, { authorId: 1, deleted: 1 }).lean().exec();
  if (!board) throw AppError.notFound();
  const decidedAt = ctx.now();
  const removing = action === 'REMOVE' && !board.deleted;
  const result = await ctx.models.boards
    .updateOne(
      { _id: boardId, reportStatus: 'OPEN' },
      {
        $set: { reportStatus: 'CLOSED', moderation: { action, note, decidedAt }, ...(removing ? { deleted: true, updatedAt: decidedAt } : {}) },
        $push: {
          pendingEvents: auditEvent('community', admin, { action, targetType: 'BOARD', targetId: boardId, memberId: board.authorId, reason: note }, decidedAt),
        },
      },
    )
    .exec();
  // Another administrator decided first.
  if (result.modifiedCount === 0) throw AppError.notFound();
  ctx.eventsPending();
  await ctx.models.boardReports
    .updateMany(
      { boardId, closedAt: null, createdAt: { $lte: decidedAt } },
      { $set: { closedAt: decidedAt, outcome: action === 'REMOVE' ? 'REMOVED' : 'DISMISSED', note } },
    )
    .exec();
  if (removing) await hideFromOwnLists(ctx, [boardId]);
  return boardId;
}

export const MyBoardReportStates = ['RECEIVED', 'REMOVED', 'DISMISSED'] as const;
export type MyBoardReportState = (typeof MyBoardReportStates)[number];

export interface MyBoardReportItem {
  boardId: number;
  /** The post's title as it is now ('' when it is gone from the store). */
  title: string;
  reportType: BoardReportType;
  reportReason: string;
  state: MyBoardReportState;
  note: string | null;
  createdAt: string;
  decidedAt: string | null;
}

/** How many of a member's reports their list shows (newest first), as for listings. */
export const MY_BOARD_REPORTS_LIMIT = 100;

/** The caller's reports on posts and what became of each: RECEIVED while open, then REMOVED or DISMISSED with the note. */
export async function myBoardReports(ctx: CommunityContext, caller: AuthClaims): Promise<MyBoardReportItem[]> {
  const reports = await ctx.models.boardReports
    .find({ userId: caller.userId })
    .sort({ createdAt: -1, _id: -1 })
    .limit(MY_BOARD_REPORTS_LIMIT)
    .lean<BoardReportDoc[]>()
    .exec();
  const boards = await ctx.models.boards
    .find({ _id: { $in: reports.map((r) => r.boardId) } }, { title: 1 })
    .lean<Array<Pick<BoardDoc, '_id' | 'title'>>>()
    .exec();
  const titles = new Map(boards.map((b) => [b._id, b.title]));
  return reports.map((r) => ({
    boardId: r.boardId,
    title: titles.get(r.boardId) ?? '',
    reportType: r.reportType,
    reportReason: r.reportReason,
    state: r.closedAt ? (r.outcome ?? 'DISMISSED') : 'RECEIVED',
    note: r.closedAt ? (r.note ?? null) : null,
    createdAt: toIsoOffset(r.createdAt),
    decidedAt: r.closedAt ? toIsoOffset(r.closedAt) : null,
  }));
}
