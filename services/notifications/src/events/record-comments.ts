import { consume, recordCommentCreated } from '@binzip/shared';
import type { NotificationsContext } from '../domain/context';
import { notifyAboutComment, recordCommentNotice } from '../domain/comment-notices';
import type { EventSettings } from './index';

/** A record comment notifies the record's author and, for a reply, the parent comment's author. */
export const recordComments = (ctx: NotificationsContext, settings: EventSettings) =>
  consume(recordCommentCreated, {
    durable: 'notifications-record-comments',
    maxDeliver: settings.EVENT_MAX_DELIVER,
    backoffMs: settings.EVENT_BACKOFF_MS,
    handle: async (event) => void (await notifyAboutComment(ctx, recordCommentNotice(event))),
  });
