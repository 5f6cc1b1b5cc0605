import type { Connection } from 'mongoose';
import type { Logger } from '../core/telemetry';
import type { MediaSettings } from './config';
import { pictureModel } from './pictures';
import { pictureStoreFor } from './store';

export interface PictureSweepDeps {
  connection: Connection;
  settings: MediaSettings;
  service: string;
  logger: Logger;
  now: () => Date;
  /**
   * The hashes of every picture still in use: named by a live post or listing, or by one deleted after
   * `deletedSince` (still within its retention). `pictureHashesIn` reads them from URLs and bodies.
   */
  referenced: (deletedSince: Date) => Promise<Set<string>>;
}

const BATCH = 500;

/**
 * Removes the pictures nobody uses: uploaded more than `MEDIA_UNUSED_RETENTION_HOURS` ago (an upload renews
 * this) and named by no post or listing, a deleted one's counting for `MEDIA_DELETED_RETENTION_DAYS`. The
 * record goes first, and only if no upload renewed it meanwhile; then both files. Returns how many went.
 */
export async function sweepUnusedPictures(deps: PictureSweepDeps): Promise<number> {
  const { settings } = deps;
  const records = pictureModel(deps.connection);
  const store = pictureStoreFor(settings, deps.connection, deps.service);
  const now = deps.now().getTime();
  const uploadedBefore = new Date(now - settings.MEDIA_UNUSED_RETENTION_HOURS * 3_600_000);
  let removed = 0;
  let used: Set<string> | undefined;
  let after: Date | undefined;
  for (;;) {
    const candidates = await records
      .find({ createdAt: after ? { $lt: uploadedBefore, $gt: after } : { $lt: uploadedBefore } }, { createdAt: 1 })
      .sort({ createdAt: 1 })
      .limit(BATCH)
      .lean()
      .exec();
    if (candidates.length === 0) break;
    // One look at what is used per sweep, and only when there is something old enough to judge.
    used ??= await deps.referenced(new Date(now - settings.MEDIA_DELETED_RETENTION_DAYS * 86_400_000));
    for (const candidate of candidates) {
      if (used.has(candidate._id)) continue;
      const gone = await records.deleteOne({ _id: candidate._id, createdAt: candidate.createdAt }).exec();
      if (gone.deletedCount === 0) continue;
      await store.remove(`${candidate._id}.thumb.webp`);
      await store.remove(`${candidate._id}.webp`);
      removed++;
    }
    after = candidates[candidates.length - 1]?.createdAt;
    if (candidates.length < BATCH) break;
  }
  if (removed > 0) deps.logger.info('unused pictures removed', { removed });
  return removed;
}

/** Sweeps every `MEDIA_SWEEP_INTERVAL_MS` (every instance: the removals are idempotent); returns the stop. */
export function startPictureSweeper(deps: PictureSweepDeps): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepUnusedPictures(deps).catch((err: unknown) =>
      deps.logger.warn('picture sweep failed', { error: err instanceof Error ? err.message : String(err) }),
    );
  }, deps.settings.MEDIA_SWEEP_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
