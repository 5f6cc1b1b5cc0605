import { AppError, isAdmin, isDuplicateKeyError, type AuthClaims } from '@binzip/shared';
import type { HouseModels, ReportType } from '../models';
import { canRead, findHouse, hideReported, isAuthor } from './access';

/** Scraps and reports: one per user and listing, guarded by unique indexes. */
export class InteractionUseCases {
  constructor(private readonly models: HouseModels) {}

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
    try {
      await this.models.reports.create({ houseId, userId: claims.userId, ...report, createdAt: new Date() });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      duplicate = true;
    }
    // Also on a repeated report: if hiding failed after the first one was stored, the retry still hides it.
    await hideReported(this.models, houseId);
    if (duplicate) throw new AppError('H0003');
  }
}
