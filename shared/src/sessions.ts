import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { ACCESS_TOKEN_TTL_SECONDS } from './auth';
import { AppError } from './errors';
import type { Logger } from './logger';
import type { EventBus, RunningConsumer } from './nats';

/**
 * `sessions.revoked`: accounts ended these sign-ins (logout, password change, suspension, withdrawal, a stolen
 * refresh token). Every process refuses their access tokens from then on, instead of letting them run out.
 */
export const sessionsRevokedV1 = z.object({
  v: z.literal(1),
  eventId: z.string().min(1),
  userId: z.number().int().positive(),
  sessionIds: z.array(z.string().min(1).max(64)).min(1).max(10_000),
  occurredAt: z.string(),
});
export type SessionsRevokedV1 = z.infer<typeof sessionsRevokedV1>;
export const SESSIONS_REVOKED = 'sessions.revoked';

/** How long a revocation must be remembered: no access token of the session is valid for longer. */
const REMEMBER_MS = ACCESS_TOKEN_TTL_SECONDS * 1000 + 60_000;

/**
 * The revoked session ids this process knows, each until every access token of it has expired. One per
 * process (the authentication of every request reads it), fed by `followSessionRevocations` and, in accounts,
 * directly by the revoking request so accounts itself refuses the token at once.
 */
class RevokedSessions {
  private readonly until = new Map<string, number>();

  add(sessionIds: readonly string[], nowMs = Date.now()): void {
    for (const id of sessionIds) this.until.set(id, nowMs + REMEMBER_MS);
    this.prune(nowMs);
  }

  has(sessionId: string, nowMs = Date.now()): boolean {
    const until = this.until.get(sessionId);
    return until !== undefined && until > nowMs;
  }

  /** Entries are added in time order, so the expired ones are at the front of the map. */
  private prune(nowMs: number): void {
    for (const [id, until] of this.until) {
      if (until > nowMs) break;
      this.until.delete(id);
    }
  }
}

export const revokedSessions = new RevokedSessions();

export function sessionsRevokedEvent(userId: number, sessionIds: readonly string[], now: Date): SessionsRevokedV1 {
  return { v: 1, eventId: randomUUID(), userId, sessionIds: [...sessionIds], occurredAt: now.toISOString() };
}

/**
 * Follows `sessions.revoked` from as far back as an access token lives, so a process started after a logout
 * still refuses that session's tokens; then every new revocation, within the broker's delivery time.
 */
export async function followSessionRevocations(bus: EventBus, logger: Logger): Promise<RunningConsumer> {
  return bus.follow('SESSIONS', SESSIONS_REVOKED, new Date(Date.now() - REMEMBER_MS), (data) => {
    const event = sessionsRevokedV1.safeParse(data);
    if (!event.success) {
      logger.warn('invalid session revocation ignored', { issue: event.error.issues[0]?.message });
      return;
    }
    revokedSessions.add(event.data.sessionIds);
  });
}

/** 401 J0004 for an access token of a revoked session (runs after `authenticate`). */
export const refuseRevokedSessions: RequestHandler = (req, _res, next) => {
  const sessionId = req.auth?.sessionId;
  if (sessionId !== undefined && revokedSessions.has(sessionId)) throw new AppError('J0004');
  next();
};
