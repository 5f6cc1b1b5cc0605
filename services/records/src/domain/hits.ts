import { isDuplicateKeyError } from '@binzip/shared';
import { DAY_MS } from './vocabulary';
import type { RecordsContext } from './context';

/** Who is looking: the signed-in user, else the client address. */
export function viewerKey(userId: number | undefined, clientAddress: string | undefined): string {
  return userId !== undefined ? `u:${userId}` : `ip:${clientAddress ?? 'unknown'}`;
}

/**
 * Counts a view as a hit unless the same viewer's last counted view of this record is less than 24 h old.
 * The upsert only matches an old enough marker; when a fresh marker exists the upsert tries to insert the
 * same `_id` and fails on the unique key, so two simultaneous first views count once.
 */
export async function countView(ctx: RecordsContext, recordId: number, viewer: string): Promise<boolean> {
  const now = ctx.now();
  try {
    await ctx.models.views
      .updateOne({ _id: `${recordId}|${viewer}`, countedAt: { $lte: new Date(now.getTime() - DAY_MS) } }, { $set: { countedAt: now } }, { upsert: true })
      .exec();
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  await ctx.models.records.updateOne({ _id: recordId }, { $inc: { hits: 1 } }).exec();
  return true;
}
