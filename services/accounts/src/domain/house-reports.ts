import { isDuplicateKeyError } from '@binzip/shared';
import { type HouseReportCreatedV1 } from '@binzip/events';
import type { AccountsContext } from './context';

/**
 * Applies one `houses.report.created`: the receipt (keyed by event id) is stored once, then the author's
 * `reportCount` and `reportedAt` are recomputed from the receipts. A redelivery (also after a crash between
 * the two writes) stores nothing and recomputes the same values; `$max` keeps two concurrent handlers from
 * writing an older result over a newer one, as both values only ever grow.
 */
export async function applyHouseReport(ctx: Pick<AccountsContext, 'models'>, event: HouseReportCreatedV1): Promise<void> {
  const { houseReports, users } = ctx.models;
  try {
    await houseReports.create({ _id: event.eventId, authorId: event.authorId, houseId: event.houseId, reportedAt: new Date(event.occurredAt) });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  const [count, latest] = await Promise.all([
    houseReports.countDocuments({ authorId: event.authorId }).exec(),
    houseReports.findOne({ authorId: event.authorId }, { reportedAt: 1 }).sort({ reportedAt: -1 }).lean().exec(),
  ]);
  if (!latest) return;
  await users.updateOne({ _id: event.authorId }, { $max: { reportCount: count, reportedAt: latest.reportedAt } }).exec();
}
