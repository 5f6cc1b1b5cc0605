import { AppError, invalidField, nickNamesOf, type AuthClaims } from '@binzip/shared';
import type { NotificationDoc, PushSubscriptionDoc } from '../models';
import type { NotificationsContext, PushSender } from './context';
import { toFeedItem } from './feed';

/** The browser's `PushSubscription.toJSON()`. */
export interface PushSubscriptionInput {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

/** Devices per member: the oldest goes when a member subscribes one more (a device gone silent never says so). */
export const MAX_PUSH_SUBSCRIPTIONS = 10;

export function pushKey(ctx: NotificationsContext): { publicKey: string | null } {
  return { publicKey: ctx.push?.publicKey ?? null };
}

/** Stores a device's subscription for the caller (answers its endpoint); the same endpoint again replaces it. */
export async function subscribePush(ctx: NotificationsContext, caller: AuthClaims, input: PushSubscriptionInput): Promise<string> {
  // No VAPID keys, no Web Push on this server: there is nothing to subscribe to.
  if (!ctx.push) throw new AppError('C0001');
  if (!ctx.push.allows(new URL(input.endpoint))) throw invalidField('endpoint', '값이 이 서버가 보내는 푸시 서비스의 https 주소가 아닙니다.');
  const model = ctx.models.pushSubscriptions;
  const doc: PushSubscriptionDoc = {
    _id: input.endpoint,
    userId: caller.userId,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    expiresAt: typeof input.expirationTime === 'number' ? new Date(input.expirationTime) : null,
    createdAt: ctx.now(),
  };
  await model.replaceOne({ _id: doc._id }, doc, { upsert: true }).exec();
  const devices = await model.find({ userId: caller.userId }, { _id: 1 }).sort({ createdAt: -1 }).lean<Array<{ _id: string }>>().exec();
  const dropped = devices.slice(MAX_PUSH_SUBSCRIPTIONS).map((d) => d._id);
  if (dropped.length > 0) await model.deleteMany({ _id: { $in: dropped }, userId: caller.userId }).exec();
  return doc._id;
}

/** Removes one of the caller's devices; an endpoint that is not his (or not stored) is C0001. */
export async function unsubscribePush(ctx: NotificationsContext, caller: AuthClaims, input: { endpoint: string }): Promise<string> {
  const removed = await ctx.models.pushSubscriptions.deleteOne({ _id: input.endpoint, userId: caller.userId }).exec();
  if (removed.deletedCount === 0) throw new AppError('C0001');
  return input.endpoint;
}

/** What one push carried: how many devices took it, and which were gone (and so removed). */
export interface PushOutcome {
  sent: number;
  gone: number;
  failed: number;
}

/**
 * Sends a stored notice to each of its recipient's devices: the feed item (what the stream carries) as the
 * payload. A push service's 404 or 410 says the subscription is gone for good: it is removed. Preferences need no
 * second look: a kind the member turned off is never stored, so never pushed.
 */
export async function pushNotice(ctx: NotificationsContext, sender: PushSender, doc: NotificationDoc): Promise<PushOutcome> {
  const outcome: PushOutcome = { sent: 0, gone: 0, failed: 0 };
  const devices = await ctx.models.pushSubscriptions.find({ userId: doc.recipientId }).lean<PushSubscriptionDoc[]>().exec();
  if (devices.length === 0) return outcome;
  const nickNames = await nickNamesOf(ctx.models.users, doc.commenterId > 0 ? [doc.recipientId, doc.commenterId] : [doc.recipientId]);
  const payload = JSON.stringify(toFeedItem(doc, nickNames));
  await Promise.all(
    devices.map(async (device) => {
      const status = await sender.send(device, payload).catch((err: Error) => {
        ctx.logger.warn('push not sent', { userId: doc.recipientId, host: new URL(device._id).host, error: err.message });
        return 0;
      });
      if (status >= 200 && status < 300) outcome.sent += 1;
      else if (status === 404 || status === 410) {
        outcome.gone += 1;
        // Only this very subscription: the endpoint may have been subscribed again since it was read.
        await ctx.models.pushSubscriptions.deleteOne({ _id: device._id, p256dh: device.p256dh, auth: device.auth }).exec();
      } else {
        outcome.failed += 1;
        if (status !== 0) ctx.logger.warn('push refused', { userId: doc.recipientId, host: new URL(device._id).host, status });
      }
    }),
  );
  return outcome;
}

/**
 * Pushes notices as the consumers store them, a few at a time, off the consumer's path (a slow push service must
 * not hold the event's ack). Best effort by design, as Web Push itself is: a notice whose push failed is still in
 * the feed and reaches the stream's `Last-Event-ID` resume.
 */
export class PushDelivery {
  private readonly queue: NotificationDoc[] = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly ctx: NotificationsContext,
    private readonly sender: PushSender,
    private readonly limits = { concurrency: 8, queued: 10_000 },
  ) {}

  deliver(doc: NotificationDoc): void {
    if (this.queue.length >= this.limits.queued) {
      this.ctx.logger.warn('push queue full: notice not pushed', { notificationId: doc._id });
      return;
    }
    this.queue.push(doc);
    this.pump();
  }

  /** Resolves when nothing is queued or being sent (tests, shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.running < this.limits.concurrency && this.queue.length > 0) {
      const doc = this.queue.shift() as NotificationDoc;
      this.running += 1;
      void pushNotice(this.ctx, this.sender, doc)
        .catch((err: Error) => this.ctx.logger.warn('push failed', { notificationId: doc._id, error: err.message }))
        .finally(() => {
          this.running -= 1;
          this.pump();
          if (this.running === 0 && this.queue.length === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
        });
    }
  }
}
