import {
  HOUSES_REPORT_CREATED,
  houseReportCreatedV1,
  isDuplicateKeyError,
  type EventBus,
  type HouseReportCreatedV1,
  type RunningConsumer,
} from '@binzip/shared';
import type { AccountsModels } from '../models';

/**
 * Applies one `houses.report.created`: the receipt (keyed by event id) is stored once, then the author's
 * `reportCount` and `reportedAt` are recomputed from the receipts. A redelivery (also after a crash between
 * the two writes) stores nothing and recomputes the same values; `$max` keeps two concurrent handlers from
 * writing an older result over a newer one, as both values only ever grow.
 */
export async function applyHouseReport(models: AccountsModels, event: HouseReportCreatedV1): Promise<void> {
  try {
    await models.houseReports.create({ _id: event.eventId, authorId: event.authorId, houseId: event.houseId, reportedAt: new Date(event.occurredAt) });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  const [count, latest] = await Promise.all([
    models.houseReports.countDocuments({ authorId: event.authorId }).exec(),
    models.houseReports.findOne({ authorId: event.authorId }, { reportedAt: 1 }).sort({ reportedAt: -1 }).lean().exec(),
  ]);
  if (!latest) return;
  await models.users.updateOne({ _id: event.authorId }, { $max: { reportCount: count, reportedAt: latest.reportedAt } }).exec();
}

export function startHouseReportConsumer(options: { bus: EventBus; models: AccountsModels }): Promise<RunningConsumer> {
  return options.bus.consume({
    stream: 'HOUSES',
    durable: 'accounts-house-reports',
    filterSubject: HOUSES_REPORT_CREATED,
    schema: houseReportCreatedV1,
    handle: (event) => applyHouseReport(options.models, event),
  });
}
