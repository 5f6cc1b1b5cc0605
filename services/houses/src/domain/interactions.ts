import { AppError, isAdmin, isDuplicateKeyError, type AuthClaims } from '@binzip/shared';
import { houseReportCreated } from '@binzip/events';
import type { ReportType } from '../models';
import { canRead, findHouse, hideReported, isAuthor } from './access';
import { markReportOpen } from './admin-reports';
import type { HousesContext } from './context';

/** Scraps and reports: one per user and listing, guarded by unique indexes. */

/** A listing can be scraped when the caller can read it and it is saved (not a draft). */
export async function scrapHouse(ctx: HousesContext, caller: AuthClaims, input: { houseId: number }): Promise<number> {
  const { houseId } = input;
  const house = await findHouse(ctx, houseId);
  if (!house || house.tmpYn || !canRead(house, caller)) throw AppError.notFound();
  try {
    await ctx.models.scraps.create({ userId: caller.userId, houseId, createdAt: ctx.now() });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new AppError('H0002');
    throw err;
  }
  return houseId;
}

export async function unscrapHouse(ctx: HousesContext, caller: AuthClaims, input: { houseId: number }): Promise<void> {
  const result = await ctx.models.scraps.deleteOne({ userId: caller.userId, houseId: input.houseId }).exec();
  if (result.deletedCount === 0) throw AppError.notFound();
}

export interface ReportInput {
  houseId: number;
  reportType: ReportType;
  reportReason: string;
}

/**
 * One report hides the listing from everyone but its author and the administrators. A listing already
 * hidden by someone else's report can still be reported (the reasons are kept for the administrators).
 */
export async function reportHouse(ctx: HousesContext, caller: AuthClaims, input: ReportInput): Promise<void> {
  const { houseId, reportType, reportReason } = input;
  const house = await findHouse(ctx, houseId);
  if (!house || house.deleted) throw AppError.notFound();
  const approved = house.dealState === 'ONGOING' || house.dealState === 'COMPLETED';
  if (!isAuthor(house, caller) && (house.tmpYn || !(approved || isAdmin(caller)))) throw AppError.notFound();
  if (isAuthor(house, caller)) throw new AppError('H0001');
  let duplicate = false;
  const createdAt = ctx.now();
  const event = houseReportCreated.outbox({
    houseId,
    authorId: house.authorId,
    reporterId: caller.userId,
    reportType,
    occurredAt: createdAt.toISOString(),
  });
  try {
    const report = await ctx.models.reports.create({ houseId, userId: caller.userId, reportType, reportReason, createdAt, pendingEvents: [event] });
    ctx.eventsPending({ model: ctx.models.reports, id: report._id });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    duplicate = true;
  }
  // Also on a repeated report: if hiding failed after the first one was stored, the retry still hides it.
  await hideReported(ctx, houseId);
  // The repeat of a report whose first attempt stopped before this point still opens it for the administrators.
  const stored = duplicate ? await ctx.models.reports.findOne({ houseId, userId: caller.userId }).lean().exec() : { createdAt, closedAt: null };
  if (stored && !stored.closedAt) await markReportOpen(ctx, houseId, stored.createdAt);
  if (duplicate) throw new AppError('H0003');
}
