import { AppError, projectedSuspension, type AuthClaims } from '@binzip/shared';
import type { Express, Request, Response } from 'express';
import type { Connection } from 'mongoose';
import type { NotificationsContext } from '../domain/context';
import { noticesAfter } from '../domain/feed';
import type { LiveNotices, StreamEnd } from '../domain/live';
import { takeTicket, tokenExpiry } from '../domain/stream';

export interface StreamSettings {
  /** A comment line this often keeps every proxy on the way (the gateway's 10 s answer timeout included) from closing an idle stream. */
  heartbeatMs: number;
  /** Most notices sent on a resume (`Last-Event-ID`); past it the client is told to read the feed. */
  resumeMax: number;
}

/**
 * The live stream's route, said once: mounted here, and read by `npm run client:types` into the gateway's table of
 * long-lived answers (which get a connection of their own, outside the pool and its queue).
 */
export const LIVE_STREAM = { method: 'GET', path: '/api/v1/notifications/stream' } as const;

export const DEFAULT_STREAM_SETTINGS: StreamSettings = { heartbeatMs: 5_000, resumeMax: 100 };

const send = (res: Response, text: string) => res.write(text);
const event = (res: Response, name: string, data: unknown, id?: number) =>
  send(res, `${id !== undefined ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * `GET /api/v1/notifications/stream` (issue 38): Server-Sent Events, one `notification` event per notice (the
 * notice's id as the event id, the feed item as data). Not an operation of the API document: its answer is a
 * `text/event-stream`, not an envelope (README, docs/decisions-local.md). Before the stream starts, refusals are
 * envelopes: no token or ticket 401 J0000, a bad one the J-codes, a suspended or withdrawn member 403 U0012.
 * Once started, it ends with an `end` event saying why (TOKEN_EXPIRED, SUSPENDED, WITHDRAWN, SERVER_CLOSING).
 */
export function mountStream(app: Express, ctx: NotificationsContext, live: LiveNotices, connection: Connection, settings: StreamSettings): void {
  const statusOf = projectedSuspension(connection);
  app.get(LIVE_STREAM.path, async (req: Request, res: Response) => {
    let claims: AuthClaims;
    let expiresAt: Date;
    const ticket = typeof req.query.ticket === 'string' ? req.query.ticket : undefined;
    if (req.auth) {
      claims = req.auth;
      expiresAt = tokenExpiry(req.headers.authorization);
    } else if (ticket !== undefined) {
      ({ claims, tokenExpiresAt: expiresAt } = await takeTicket(ctx, ticket));
    } else throw new AppError('J0000');
    if (await statusOf(claims.userId)) throw new AppError('U0012');
    const userId = claims.userId;

    const header = req.headers['last-event-id'] ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined);
    const resumeFrom = typeof header === 'string' && /^\d{1,16}$/.test(header) ? Number(header) : undefined;
    // Without a resume point the stream starts after the newest notice the member already has.
    let lastId =
      resumeFrom ?? (await ctx.models.notifications.findOne({ recipientId: userId }, { _id: 1 }).sort({ _id: -1 }).lean<{ _id: number }>().exec())?._id ?? 0;

    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    send(res, `retry: 3000\n\n`);

    let ended = false;
    let reading: Promise<void> | undefined;
    let again = false;
    /** Sends what is past `lastId`, in order; wakes during a read queue one more read, never a parallel one. */
    const readAndSend = async (bound: number): Promise<void> => {
      const items = await noticesAfter(ctx, userId, lastId, bound + 1);
      if (items.length > bound) {
        // More missed than a resume carries: the newest `bound` follow, the client reads the rest from the feed.
        event(res, 'resync', { reason: 'TOO_MANY_MISSED', feed: '/api/v1/notifications/feed' });
        items.shift();
      }
      for (const item of items) {
        if (ended) return;
        event(res, 'notification', item, item.notification_id);
        lastId = Math.max(lastId, item.notification_id);
      }
    };
    const wake = () => {
      if (ended) return;
      if (reading) {
        again = true;
        return;
      }
      reading = (async () => {
        do {
          again = false;
          await readAndSend(settings.resumeMax).catch((err: Error) => ctx.logger.warn('stream read failed', { userId, error: err.message }));
        } while (again && !ended);
      })().finally(() => {
        reading = undefined;
      });
    };

    const heartbeat = setInterval(() => send(res, `: ping\n\n`), settings.heartbeatMs);
    // The token is checked again when it expires: the stream ends, and the client reconnects with a fresh one.
    const expiry = setTimeout(() => end('TOKEN_EXPIRED'), Math.max(0, Math.min(expiresAt.getTime() - Date.now(), 2 ** 31 - 1)));
    let remove = () => undefined as void;
    function end(reason: StreamEnd): void {
      if (ended) return;
      event(res, 'end', { reason });
      cleanUp();
      res.end();
    }
    function cleanUp(): void {
      ended = true;
      clearInterval(heartbeat);
      clearTimeout(expiry);
      remove();
    }
    res.once('close', cleanUp);
    remove = live.add({ userId, wake, end });
    if (resumeFrom !== undefined) wake();
  });
}
