import {
  AppError,
  auditEvent,
  buildPage,
  nickNameIn,
  nickNamesOf,
  pageWindow,
  toIsoOffset,
  type AuthClaims,
  type PageObject,
  type PageRequest,
  type SortOrder,
} from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import { DealStates, isListed, type HouseDoc, type ReportDoc, type ReportType } from '../models';
import { changeHouse } from './access';
import type { HousesContext } from './context';
import { cityCondition } from './queries';
import { RegionWords, RentalTypes } from './vocabulary';

export const ReportTypeNames: Record<ReportType, string> = { FAKE_SALE: '허위매물', ADVERTISING_BOARD: '스팸게시글/광고', ETC: '기타' };
export const ReportStatuses = ['OPEN', 'CLOSED'] as const;
export type ReportStatus = (typeof ReportStatuses)[number];
export const ReportActions = ['DISMISS', 'REMOVE'] as const;
export type ReportAction = (typeof ReportActions)[number];

/**
 * A new report opens the listing for the administrators. Needs no read: `$max` keeps the latest time, and the
 * state guard of `changeHouse` does not include these fields, so it neither races with nor is raced by it.
 */
export async function markReportOpen(ctx: HousesContext, houseId: number, reportedAt: Date): Promise<void> {
  await ctx.models.houses.updateOne({ _id: houseId }, { $set: { reportStatus: 'OPEN' }, $max: { lastReportedAt: reportedAt } }).exec();
}

export interface AdminReportItem {
  houseId: number;
  title: string;
  authorId: number;
  nickName: string;
  reportCount: number;
  lastReportedAt: string | null;
  status: ReportStatus;
  reports: Array<{ reportType: ReportType; reportTypeName: string; reportReason: string; reporterNickName: string; createdAt: string }>;
}

export interface ReportListQuery extends PageRequest {
  status: ReportStatus;
  /** By the latest report's time, newest first unless asked otherwise (issue 40). */
  sort?: SortOrder<'lastReportedAt'>;
}

/** One item per reported listing, most recent report first; OPEN shows the open reports, CLOSED the handled ones. */
export async function listReports(ctx: HousesContext, query: ReportListQuery): Promise<PageObject<AdminReportItem>> {
  const { models } = ctx;
  const { status, sort, ...request } = query;
  const direction = sort?.direction ?? -1;
  const filter: FilterQuery<HouseDoc> = { reportStatus: status };
  const { skip, limit } = pageWindow(request);
  const [houses, total] = await Promise.all([
    models.houses.find(filter, { pendingEvents: 0 }).sort({ lastReportedAt: direction, _id: direction }).skip(skip).limit(limit).lean<HouseDoc[]>().exec(),
    models.houses.countDocuments(filter).exec(),
  ]);
  const reports = await models.reports
    .find({ houseId: { $in: houses.map((h) => h._id) }, closedAt: status === 'OPEN' ? null : { $ne: null } }, { pendingEvents: 0 })
    .sort({ createdAt: -1, _id: -1 })
    .lean<ReportDoc[]>()
    .exec();
  const nickNames = await nickNamesOf(models.users, [...houses.map((h) => h.authorId), ...reports.map((r) => r.userId)]);
  const nickName = (id: number) => nickNameIn(nickNames, id);
  const items = houses.map((house) => {
    const own = reports.filter((r) => r.houseId === house._id);
    return {
      houseId: house._id,
      title: house.title,
      authorId: house.authorId,
      nickName: nickName(house.authorId),
      reportCount: own.length,
      lastReportedAt: house.lastReportedAt ? toIsoOffset(house.lastReportedAt) : null,
      status,
      reports: own.map((r) => ({
        reportType: r.reportType,
        reportTypeName: ReportTypeNames[r.reportType] ?? r.reportType,
        reportReason: r.reportReason,
        reporterNickName: nickName(r.userId),
        createdAt: toIsoOffset(r.createdAt),
      })),
    };
  });
  return buildPage(items, request, total);
}

/**
 * DISMISS: the listing is public again (if approved) and its reports are closed; REMOVE: it is deleted. Reports
 * that arrive after the decision was read stay open (only those up to then are closed), so a new report by
 * another member hides the listing and opens it again. The decision's `note` (issue 40) is kept on the listing
 * (its author reads why it was taken down) and on each report it closes (the reporter reads the outcome); the
 * audit entry (DISMISS or REMOVE on the REPORT, its id the listing's, the note as reason) is stored in the
 * listing's write.
 */
export async function decideReport(ctx: HousesContext, admin: AuthClaims, input: { houseId: number; action: ReportAction; note?: string }): Promise<number> {
  const { houseId, action } = input;
  const note = input.note || null;
  const decidedAt = ctx.now();
  const moderation = { action, note, decidedAt };
  await changeHouse(
    ctx,
    houseId,
    (house) => {
      if (!house || house.deleted || house.reportStatus !== 'OPEN') throw AppError.notFound();
      if (action === 'REMOVE') return { deleted: true, deletedAt: decidedAt, listed: false, reportStatus: 'CLOSED', moderation };
      return { reported: false, listed: isListed({ ...house, reported: false }), reportStatus: 'CLOSED', moderation };
    },
    (house) => [auditEvent('houses', admin, { action, targetType: 'REPORT', targetId: houseId, memberId: house.authorId, reason: note }, decidedAt)],
  );
  await ctx.models.reports
    .updateMany(
      { houseId, closedAt: null, createdAt: { $lte: decidedAt } },
      { $set: { closedAt: decidedAt, outcome: action === 'REMOVE' ? 'REMOVED' : 'DISMISSED', note } },
    )
    .exec();
  return houseId;
}

export const MyReportStates = ['RECEIVED', 'REMOVED', 'DISMISSED'] as const;
export type MyReportState = (typeof MyReportStates)[number];

export interface MyReportItem {
  houseId: number;
  /** The listing's title as it is now ('' when it is gone from the store). */
  title: string;
  reportType: ReportType;
  reportReason: string;
  state: MyReportState;
  note: string | null;
  createdAt: string;
  decidedAt: string | null;
}

/** How many of a member's reports the member's list shows (newest first); older ones are long decided. */
export const MY_REPORTS_LIMIT = 100;

/**
 * The caller's reports and what became of each (issue 40): RECEIVED while open, then REMOVED or DISMISSED with the
 * administrator's note.
 */
export async function myReports(ctx: HousesContext, caller: AuthClaims): Promise<MyReportItem[]> {
  const reports = await ctx.models.reports
    .find({ userId: caller.userId }, { pendingEvents: 0 })
    .sort({ createdAt: -1, _id: -1 })
    .limit(MY_REPORTS_LIMIT)
    .lean<ReportDoc[]>()
    .exec();
  const houses = await ctx.models.houses
    .find({ _id: { $in: reports.map((r) => r.houseId) } }, { title: 1, deleted: 1 })
    .lean<Array<Pick<HouseDoc, '_id' | 'title' | 'deleted'>>>()
    .exec();
  const byId = new Map(houses.map((h) => [h._id, h]));
  // Reports closed before outcomes were kept: a deleted listing was removed, any other dismissed.
  const outcomeOf = (r: ReportDoc): MyReportState => r.outcome ?? (byId.get(r.houseId)?.deleted ? 'REMOVED' : 'DISMISSED');
  return reports.map((r) => ({
    houseId: r.houseId,
    title: byId.get(r.houseId)?.title ?? '',
    reportType: r.reportType,
    reportReason: r.reportReason,
    state: r.closedAt ? outcomeOf(r) : 'RECEIVED',
    note: r.closedAt ? (r.note ?? null) : null,
    createdAt: toIsoOffset(r.createdAt),
    decidedAt: r.closedAt ? toIsoOffset(r.closedAt) : null,
  }));
}

export interface HouseStats {
  total: number;
  byDealState: Record<(typeof DealStates)[number], number>;
  byRentalType: Record<(typeof RentalTypes)[number], number>;
  byRegion: Array<{ region: string; count: number }>;
  reportedOpen: number;
}

/** Saved (not draft), not deleted listings; one count per value (no aggregation stages: docs/dev-mongo.md). */
export async function houseStats(ctx: HousesContext): Promise<HouseStats> {
  const saved = { tmpYn: false, deleted: false };
  const count = (filter: FilterQuery<HouseDoc>) => ctx.models.houses.countDocuments({ ...saved, ...filter }).exec();
  const regions = Object.keys(RegionWords);
  const [total, states, rentals, byRegion, reportedOpen] = await Promise.all([
    count({}),
    Promise.all(DealStates.map((dealState) => count({ dealState }))),
    Promise.all(RentalTypes.map((rentalType) => count({ rentalType }))),
    Promise.all(regions.map((region) => count({ city: cityCondition(region) }))),
    count({ reportStatus: 'OPEN' }),
  ]);
  return {
    total,
    byDealState: Object.fromEntries(DealStates.map((s, i) => [s, states[i] ?? 0])) as HouseStats['byDealState'],
    byRentalType: Object.fromEntries(RentalTypes.map((t, i) => [t, rentals[i] ?? 0])) as HouseStats['byRentalType'],
    byRegion: regions.map((region, i) => ({ region, count: byRegion[i] ?? 0 })),
    reportedOpen,
  };
}
