import type { RequestHandler } from 'express';
import { ACCESS_TOKEN_TTL_SECONDS } from '../core/auth';
import type { EventBus } from './connection';
import type { RunningConsumer } from './consume';
import { AppError } from '../core/wire';
import { sessionsRevoked, type SessionsRevokedV1 } from './events';

/** How long a revocation must be remembered: no access token of the session is valid for longer. */
export const REVOCATIONS_REMEMBERED_MS = ACCESS_TOKEN_TTL_SECONDS * 1000 + 60_000;
const REMEMBER_MS = REVOCATIONS_REMEMBERED_MS;

/**
 * The revoked session ids this process knows, each until every access token of it has expired. One per
 * process (the authentication of every request reads it), fed by `followSessionRevocations` and, in accounts,
 * directly by the revoking request so accounts itself refuses the token at once.
 */
class RevokedSessions {
  private readonly until = new Map<string, number>();

  /** Remembered from now (the revocation feed repeats recent ones: an entry is only ever extended). */
  add(sessionIds: readonly string[], nowMs = Date.now()): void {
    const until = nowMs + REMEMBER_MS;
    for (const id of sessionIds) if ((this.until.get(id) ?? 0) < until) this.until.set(id, until);
    this.prune(nowMs);
  }

  has(sessionId: string, nowMs = Date.now()): boolean {
    const until = this.until.get(sessionId);
    return until !== undefined && until > nowMs;
  }

  /** Entries are added in about time order, so the expired ones are at the front of the map (a late one only waits). */
  private prune(nowMs: number): void {
    for (const [id, until] of this.until) {
      if (until > nowMs) break;
      this.until.delete(id);
    }
  }
}

export const revokedSessions = new RevokedSessions();

export function sessionsRevokedEvent(userId: number, sessionIds: readonly string[], now: Date): SessionsRevokedV1 {
  return sessionsRevoked.build({ userId, sessionIds: [...sessionIds], occurredAt: now.toISOString() });
}

/**
 * Follows `sessions.revoked` from as far back as an access token lives, so a process started after a logout
 * still refuses that session's tokens; then every new revocation, within the broker's delivery time.
 */
export function followSessionRevocations(bus: EventBus): Promise<RunningConsumer> {
  return bus.follow(sessionsRevoked, new Date(Date.now() - REMEMBER_MS), (event) => revokedSessions.add(event.sessionIds));
}

/** 401 J0004 for an access token of a revoked session (runs after `authenticate`). */
export const refuseRevokedSessions: RequestHandler = (req, _res, next) => {
  const sessionId = req.auth?.sessionId;
  if (sessionId !== undefined && revokedSessions.has(sessionId)) throw new AppError('J0004');
  next();
};
