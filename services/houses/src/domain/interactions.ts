import { AppError, HOUSES_REPORT_CREATED, houseReportCreatedV1, isAdmin, isDuplicateKeyError, newOutboxEvent, type AuthClaims } from '@binzip/shared';
import type { HouseModels, ReportType } from '../models';
import { canRead, findHouse, hideReported, isAuthor } from './access';
import { markReportOpen } from './admin-reports';

/** Scraps and reports: one per user and listing, guarded by unique indexes. */
export class InteractionUseCases {
  constructor(
    private readonly models: HouseModels,
    /** Kicks the outbox relay after a report stored its event. */
    private readonly eventsPending: () => void = () => undefined,
  ) {}

  /** A listing can be scraped when the caller can read it and it is saved (not a draft). */
  async scrap(claims: AuthClaims, houseId: number): Promise<number> {
    const house = await findHouse(this.models, houseId);
    if (!house || house.tmpYn || !canRead(house, claims)) throw AppError.notFound();
    try {
      await this.models.scraps.create({ userId: claims.userId, houseId, createdAt: new Date() });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new AppError('H0002');
      throw err;
    }
    return houseId;
  }

  async unscrap(claims: AuthClaims, houseId: number): Promise<void> {
    const result = await this.models.scraps.deleteOne({ userId: claims.userId, houseId }).exec();
    if (result.deletedCount === 0) throw AppError.notFound();
  }

  /**
   * One report hides the listing from everyone but its author and the administrators. A listing already
   * hidden by someone else's report can still be reported (the reasons are kept for the administrators).
   */
  async report(claims: AuthClaims, houseId: number, report: { reportType: ReportType; reportReason: string }): Promise<void> {
    const house = await findHouse(this.models, houseId);
    if (!house || house.deleted) throw AppError.notFound();
    const approved = house.dealState === 'ONGOING' || house.dealState === 'COMPLETED';
    if (!isAuthor(house, claims) && (house.tmpYn || !(approved || isAdmin(claims)))) throw AppError.notFound();
    if (isAuthor(house, claims)) throw new AppError('H0001');
    let duplicate = false;
    const createdAt = new Date();
    const event = newOutboxEvent(HOUSES_REPORT_CREATED, (eventId) =>
      houseReportCreatedV1.parse({
        v: 1,
        eventId,
        houseId,
        authorId: house.authorId,
        reporterId: claims.userId,
        reportType: report.reportType,
        occurredAt: createdAt.toISOString(),
      }),
    );
    try {
      await this.models.reports.create({ houseId, userId: claims.userId, ...report, createdAt, pendingEvents: [event] });
      this.eventsPending();
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      duplicate = true;
    }
    // Also on a repeated report: if hiding failed after the first one was stored, the retry still hides it.
    await hideReported(this.models, houseId);
    // The repeat of a report whose first attempt stopped before this point still opens it for the administrators.
    const stored = duplicate ? await this.models.reports.findOne({ houseId, userId: claims.userId }).lean().exec() : { createdAt, closedAt: null };
    if (stored && !stored.closedAt) await markReportOpen(this.models, houseId, stored.createdAt);
    if (duplicate) throw new AppError('H0003');
  }
}
