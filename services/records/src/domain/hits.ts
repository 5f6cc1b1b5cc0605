import { isDuplicateKeyError } from '@binzip/shared';
import type { RecordsModels } from '../models';
import { DAY_MS } from './catalog';

/** Who is looking: the signed-in user, else the client address. */
export function viewerKey(userId: number | undefined, clientAddress: string | undefined): string {
  return userId !== undefined ? `u:${userId}` : `ip:${clientAddress ?? 'unknown'}`;
}

/**
 * Counts a view as a hit unless the same viewer's last counted view of this record is less than 24 h old.
 * The upsert only matches an old enough marker; when a fresh marker exists the upsert tries to insert the
 * same `_id` and fails on the unique key, so two simultaneous first views count once.
 */
export async function countView(models: RecordsModels, recordId: number, viewer: string, now: Date): Promise<boolean> {
  try {
    await models.views
      .updateOne({ _id: `${recordId}|${viewer}`, countedAt: { $lte: new Date(now.getTime() - DAY_MS) } }, { $set: { countedAt: now } }, { upsert: true })
      .exec();
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  await models.records.updateOne({ _id: recordId }, { $inc: { hits: 1 } }).exec();
  return true;
}
