import { consume } from '@binzip/shared';
import { communityCommentCreated, houseListingChanged, houseListingDecided, houseListingPublished, recordCommentCreated } from '@binzip/events';
import type { NotificationsContext } from '../domain/context';
import { boardCommentNotice, notifyAboutComment, recordCommentNotice, type CommentNotice } from '../domain/comment-notices';
import { alertMatches, tellDecision, tellScrappers } from '../domain/listing-notices';
import { PushDelivery } from '../domain/push';
import type { NotificationDoc } from '../models';
import { noticeKeys } from '../cache-keys';

/** How often an event is tried and how long between tries (`EVENT_MAX_DELIVER`, `EVENT_BACKOFF_MS`). */
export interface EventSettings {
  EVENT_MAX_DELIVER: number;
  EVENT_BACKOFF_MS: number[];
}

/** Where a newly stored notice goes at once besides Web Push: the live streams (domain/live.ts); absent in some tests. */
export interface NoticeDelivery {
  deliver(doc: NotificationDoc): void;
}

/**
 * Every event notifications consumes; main.ts hands them to runService, tests start the same list. Each is
 * acked only after its notifications are stored; the unique keys ((kind, commentId, recipientId), (eventId, kind,
 * recipientId)) make a redelivery harmless, so an alert delayed by a NATS or store outage arrives once after it.
 * Once stored, the recipients' cached inboxes (`changes`) are forgotten by the runtime here and in the other
 * instances (every recipient's, so a redelivery after a crash between the two still forgets them), and each new
 * notice is handed to `delivery` (the live streams) and, when the context has Web Push, to the push queue.
 */
export const notificationsConsumers = (ctx: NotificationsContext, settings: EventSettings, delivery?: NoticeDelivery) => {
  const tries = { maxDeliver: settings.EVENT_MAX_DELIVER, backoffMs: settings.EVENT_BACKOFF_MS };
  const pushing = ctx.push ? new PushDelivery(ctx, ctx.push) : undefined;
  const deliver = (doc: NotificationDoc) => {
    delivery?.deliver(doc);
    pushing?.deliver(doc);
  };
  const store = async (notice: CommentNotice): Promise<void> => {
    await notifyAboutComment(ctx, notice, deliver);
  };
  return [
    // A board comment notifies the board's author.
    consume(communityCommentCreated, {
      durable: 'notifications-board-comments',
      ...tries,
      handle: (event) => store(boardCommentNotice(event)),
      changes: (event) => noticeKeys(boardCommentNotice(event)),
    }),
    // A record comment notifies the record's author and, for a reply, the parent comment's author.
    consume(recordCommentCreated, {
      durable: 'notifications-record-comments',
      ...tries,
      handle: (event) => store(recordCommentNotice(event)),
      changes: (event) => noticeKeys(recordCommentNotice(event)),
    }),
    // A listing made public alerts the members whose saved searches it matches (LISTING_MATCH).
    consume(houseListingPublished, {
      durable: 'notifications-listing-alerts',
      ...tries,
      handle: async (event) => (await alertMatches(ctx, event)).forEach(deliver),
    }),
    // An administrator's decision tells the listing's author (LISTING_APPROVED, LISTING_REJECTED).
    consume(houseListingDecided, {
      durable: 'notifications-listing-decisions',
      ...tries,
      handle: async (event) => (await tellDecision(ctx, event)).forEach(deliver),
    }),
    // A price or deal state change tells the members who scrapped the listing (SCRAP_CHANGED).
    consume(houseListingChanged, {
      durable: 'notifications-scrap-changes',
      ...tries,
      handle: async (event) => (await tellScrappers(ctx, event)).forEach(deliver),
    }),
  ];
};
