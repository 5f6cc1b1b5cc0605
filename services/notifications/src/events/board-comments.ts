import { communityCommentCreated, consume } from '@binzip/shared';
import type { NotificationsContext } from '../domain/context';
import { boardCommentNotice, notifyAboutComment } from '../domain/comment-notices';
import type { EventSettings } from './index';

/** A board comment notifies the board's author. */
export const boardComments = (ctx: NotificationsContext, settings: EventSettings) =>
  consume(communityCommentCreated, {
    durable: 'notifications-board-comments',
    maxDeliver: settings.EVENT_MAX_DELIVER,
    backoffMs: settings.EVENT_BACKOFF_MS,
    handle: async (event) => void (await notifyAboutComment(ctx, boardCommentNotice(event))),
  });
