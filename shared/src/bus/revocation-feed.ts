import type { Model } from 'mongoose';
import { z } from 'zod';
import { Authorities, UserTypes } from '../core/auth';
import type { Logger } from '../core/telemetry';
import { UserStatuses } from './events';
import { revokedSessions, REVOCATIONS_REMEMBERED_MS } from './members';
import { applyUserSnapshot, type ProjectedUser } from './members';

/**
 * The second path of revocations (issue 34): `sessions.revoked` and the user snapshots reach every process through
 * NATS within milliseconds, but not while the broker is away. So every process also reads, in the background and
 * every `REVOCATION_POLL_MS` (5 s), what accounts recorded since its last read: the endings of sessions (its
 * `session_revocations`) and the users whose snapshot changed (a suspension, its lifting, a withdrawal). Accounts
 * answers it at `GET /internal/revocations` to the bearer of `REVOCATION_FEED_TOKEN`; its own instances read their
 * collection directly. Never on a request's path: a request only reads what the feed and the broker left in this
 * process's memory and the service's projection, so accounts being away costs nothing but the bound.
 */
export const REVOCATION_FEED_PATH = '/internal/revocations';

/** Default of `REVOCATION_POLL_MS`: with the answer's 2 s timeout, a revocation is enforced everywhere within 10 s. */
export const REVOCATION_POLL_MS = 5_000;
/** How long one read of the feed may take before it counts as failed (the next one starts from the same point). */
export const REVOCATION_FEED_TIMEOUT_MS = 2_000;
/**
 * Each read starts this far before the previous answer's `now`: a revocation stamped just before it but stored just
 * after (a slow write, another accounts instance's clock) is read by the next one. Repeats are harmless.
 */
export const REVOCATION_FEED_OVERLAP_MS = 30_000;
/** The most of each kind one answer carries; a longer backlog is read in pages (`next`). */
export const REVOCATION_FEED_PAGE = 2_000;

const snapshot = z.object({
  id: z.number().int().positive(),
  userName: z.string(),
  nick_name: z.string(),
  userType: z.enum(UserTypes),
  authority: z.enum(Authorities),
  status: z.enum(UserStatuses),
  version: z.number().int().nonnegative(),
});

/** What accounts answers: endings of sessions and changed users since `since`, and where the next read starts. */
export const revocationFeedSchema = z.object({
  next: z.iso.datetime({ offset: true }),
  sessions: z.array(z.object({ userId: z.number().int(), sessionIds: z.array(z.string()), at: z.iso.datetime({ offset: true }) })),
  users: z.array(snapshot),
});
export type RevocationFeed = z.infer<typeof revocationFeedSchema>;
export type RevocationFeedReader = (since: Date) => Promise<RevocationFeed>;

/** How far back a process's first read goes: as long as a revoked session's access token can live. */
export const REVOCATION_FEED_WINDOW_MS = REVOCATIONS_REMEMBERED_MS;

/** Reads the feed from accounts over HTTP, trying each of its addresses in turn. */
export function httpRevocationFeed(options: { urls: readonly string[]; token: string; timeoutMs?: number }): RevocationFeedReader {
  let turn = 0;
  return async (since) => {
    let lastError: unknown;
    for (let tried = 0; tried < options.urls.length; tried++) {
      const base = options.urls[turn++ % options.urls.length].replace(/\/+$/, '');
      try {
        const res = await fetch(`${base}${REVOCATION_FEED_PATH}?since=${encodeURIComponent(since.toISOString())}`, {
          headers: { authorization: `Bearer ${options.token}` },
          signal: AbortSignal.timeout(options.timeoutMs ?? REVOCATION_FEED_TIMEOUT_MS),
        });
        const body = (await res.json()) as { data?: unknown };
        if (!res.ok) throw new Error(`accounts answered ${res.status}`);
        return revocationFeedSchema.parse(body.data);
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError instanceof Error ? lastError : new Error('no accounts address');
  };
}

export interface RevocationFeedFollower {
  /** One read now (tests; the timer does the same). */
  readOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Reads the feed every `intervalMs`: each ended session joins this process's revoked sessions (401 J0004, as from
 * `sessions.revoked`), each changed user is applied to the service's projection (`users`, absent in accounts) by
 * the same version compare as the snapshot event, so the suspension guard sees a suspension without the broker.
 * A failed read is logged when reads start failing and when they work again, and retried from the same point.
 */
export function followRevocationFeed(options: {
  read: RevocationFeedReader;
  users?: Model<ProjectedUser>;
  intervalMs?: number;
  logger: Logger;
  now?: () => number;
}): RevocationFeedFollower {
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? REVOCATION_POLL_MS;
  let since = new Date(now() - REVOCATION_FEED_WINDOW_MS);
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const readOnce = async (): Promise<void> => {
    try {
      const feed = await options.read(since);
      for (const ended of feed.sessions) revokedSessions.add(ended.sessionIds);
      if (options.users) for (const user of feed.users) await applyUserSnapshot(options.users, user);
      since = new Date(feed.next);
      if (failing) options.logger.info('revocation feed read again', { since: since.toISOString() });
      failing = false;
    } catch (err) {
      if (!failing) options.logger.warn('revocation feed unreadable: revocations now wait for NATS', { error: (err as Error).message });
      failing = true;
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = readOnce().finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  running = readOnce().finally(schedule);
  return {
    readOnce: () => (running = running.then(readOnce)),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
