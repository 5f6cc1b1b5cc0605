import { communityCommentCreated, consume, recordCommentCreated } from '@binzip/shared';
import type { Config } from '../config';
import type { NotificationsContext } from '../domain/context';
import { boardCommentNotice, notifyAboutComment, recordCommentNotice } from '../domain/comment-notices';

/** How often an event is tried and how long between tries (`EVENT_MAX_DELIVER`, `EVENT_BACKOFF_MS`). */
export type EventSettings = Pick<Config, 'EVENT_MAX_DELIVER' | 'EVENT_BACKOFF_MS'>;

/**
 * Every event notifications consumes; main.ts hands them to runService, tests start the same list. Each is
 * acked only after its notifications are stored; the unique key (kind, commentId, recipientId) makes a
 * redelivery harmless.
 */
export const notificationsConsumers = (ctx: NotificationsContext, settings: EventSettings) => {
  const tries = { maxDeliver: settings.EVENT_MAX_DELIVER, backoffMs: settings.EVENT_BACKOFF_MS };
  return [
    // A board comment notifies the board's author.
    consume(communityCommentCreated, {
      durable: 'notifications-board-comments',
      ...tries,
      handle: async (event) => void (await notifyAboutComment(ctx, boardCommentNotice(event))),
    }),
    // A record comment notifies the record's author and, for a reply, the parent comment's author.
    consume(recordCommentCreated, {
      durable: 'notifications-record-comments',
      ...tries,
      handle: async (event) => void (await notifyAboutComment(ctx, recordCommentNotice(event))),
    }),
  ];
};
