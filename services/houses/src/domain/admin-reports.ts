import { AppError, buildPage, nickNameIn, nickNamesOf, pageWindow, toIsoOffset, type PageObject, type PageRequest } from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import { DealStates, isListed, type HouseDoc, type ReportDoc, type ReportType } from '../models';
import { changeHouse } from './access';
import type { HousesContext } from './context';
import { cityCondition, RegionWords } from './regions';
import { RentalTypes } from './vocabulary';

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
}

/** One item per reported listing, most recent report first; OPEN shows the open reports, CLOSED the handled ones. */
export async function listReports(ctx: HousesContext, query: ReportListQuery): Promise<PageObject<AdminReportItem>> {
  const { models } = ctx;
  const { status, ...request } = query;
  const filter: FilterQuery<HouseDoc> = { reportStatus: status };
  const { skip, limit } = pageWindow(request);
  const [houses, total] = await Promise.all([
    models.houses.find(filter).sort({ lastReportedAt: -1, _id: -1 }).skip(skip).limit(limit).lean<HouseDoc[]>().exec(),
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
 * another member hides the listing and opens it again.
 */
export async function decideReport(ctx: HousesContext, input: { houseId: number; action: ReportAction }): Promise<number> {
  const { houseId, action } = input;
  const decidedAt = ctx.now();
  await changeHouse(ctx, houseId, (house) => {
    if (!house || house.deleted || house.reportStatus !== 'OPEN') throw AppError.notFound();
    if (action === 'REMOVE') return { deleted: true, deletedAt: decidedAt, listed: false, reportStatus: 'CLOSED' };
    return { reported: false, listed: isListed({ ...house, reported: false }), reportStatus: 'CLOSED' };
  });
  await ctx.models.reports.updateMany({ houseId, closedAt: null, createdAt: { $lte: decidedAt } }, { $set: { closedAt: decidedAt } }).exec();
  return houseId;
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
