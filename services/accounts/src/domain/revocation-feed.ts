import {
  REVOCATION_FEED_OVERLAP_MS,
  REVOCATION_FEED_PAGE,
  REVOCATION_FEED_PATH,
  REVOCATION_FEED_WINDOW_MS,
  bearerMatches,
  errorEnvelope,
  ErrorCodes,
  successEnvelope,
  type RevocationFeed,
} from '@binzip/shared';
import express, { type RequestHandler } from 'express';
import type { AccountsContext } from './context';

type FeedContext = Pick<AccountsContext, 'models' | 'now' | 'logger'>;

/**
 * What every process reads when NATS cannot tell it (shared/src/bus/revocation-feed.ts): the endings of sessions
 * recorded since `since` (`session_revocations`, the documents that carry `sessions.revoked`) and the snapshots of
 * the users changed since then (a suspension, its lifting, a withdrawal: what `accounts.user.<id>` carries). Never
 * further back than an access token lives; a backlog longer than a page is read in pages, `next` saying where the
 * next read starts (with an overlap when the answer is complete, so a write stamped just before `now` and stored
 * just after is not missed).
 */
export async function readRevocationFeed(ctx: FeedContext, since: Date): Promise<RevocationFeed> {
  const now = ctx.now();
  const from = new Date(Math.max(since.getTime(), now.getTime() - REVOCATION_FEED_WINDOW_MS));
  const [revocations, users] = await Promise.all([
    ctx.models.sessionRevocations
      .find({ createdAt: { $gte: from } }, { userId: 1, sessionIds: 1, createdAt: 1 })
      .sort({ createdAt: 1 })
      .limit(REVOCATION_FEED_PAGE)
      .lean()
      .exec(),
    ctx.models.users
      .find({ updatedAt: { $gte: from } }, { userName: 1, nickName: 1, userType: 1, authority: 1, status: 1, version: 1, updatedAt: 1 })
      .sort({ updatedAt: 1 })
      .limit(REVOCATION_FEED_PAGE)
      .lean()
      .exec(),
  ]);
  let next = now.getTime() - REVOCATION_FEED_OVERLAP_MS;
  if (revocations.length === REVOCATION_FEED_PAGE) next = Math.min(next, revocations[revocations.length - 1].createdAt.getTime());
  if (users.length === REVOCATION_FEED_PAGE) next = Math.min(next, users[users.length - 1].updatedAt.getTime());
  return {
    next: new Date(Math.max(next, from.getTime())).toISOString(),
    sessions: revocations.map((r) => ({ userId: r.userId, sessionIds: r.sessionIds, at: r.createdAt.toISOString() })),
    users: users.map((u) => ({
      id: u._id,
      userName: u.userName,
      nick_name: u.nickName,
      userType: u.userType,
      authority: u.authority,
      status: u.status,
      version: u.version,
    })),
  };
}

/**
 * `GET /internal/revocations?since=<ISO time>` for the other services' followers, beside `/ready` and `/metrics`
 * (outside the API, its document and its middleware; the gateway routes nothing under `/internal`). Only the bearer
 * of `REVOCATION_FEED_TOKEN` is answered (403 C0003 otherwise, and always without a token configured): the answer
 * names users and sessions.
 */
export function revocationFeedEndpoint(ctx: FeedContext, token: string | undefined): RequestHandler {
  const router = express.Router();
  router.get(REVOCATION_FEED_PATH, async (req, res) => {
    if (token === undefined || !bearerMatches(req.headers.authorization, token)) {
      res.status(403).json(errorEnvelope('C0003', ErrorCodes.C0003.message));
      return;
    }
    const since = typeof req.query.since === 'string' ? new Date(req.query.since) : new Date(NaN);
    if (Number.isNaN(since.getTime())) {
      res.status(400).json(errorEnvelope('C0002', ErrorCodes.C0002.message));
      return;
    }
    try {
      res.json(successEnvelope(await readRevocationFeed(ctx, since)));
    } catch (err) {
      ctx.logger.warn('revocation feed failed', { error: (err as Error).message });
      res.status(500).json(errorEnvelope('C0000', ErrorCodes.C0000.message));
    }
  });
  return router;
}
