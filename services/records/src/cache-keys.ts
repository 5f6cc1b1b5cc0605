import type { CacheLifetime } from '@binzip/shared';

/**
 * How long records' public answers are kept (`CacheLifetime`): a second. The hot list orders records by their
 * views of the last 7 days, and every detail read counts a view without announcing it (a read is no write), so the
 * lifetime is what bounds how late a view shows; the record lists share it. Records' writes and
 * `records.comment.created` forget every answer at once.
 */
export const RECORD_ANSWERS: CacheLifetime = { name: 'records', ttlMs: 1_000 };
