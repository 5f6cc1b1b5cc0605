import { communityCommentCreated, consume, recordCommentCreated } from '@binzip/shared';
import type { Config } from '../config';
import type { NotificationsContext } from '../domain/context';
import { boardCommentNotice, notifyAboutComment, recordCommentNotice, type CommentNotice } from '../domain/comment-notices';
import { noticeKeys } from '../cache-keys';

/** How often an event is tried and how long between tries (`EVENT_MAX_DELIVER`, `EVENT_BACKOFF_MS`). */
export type EventSettings = Pick<Config, 'EVENT_MAX_DELIVER' | 'EVENT_BACKOFF_MS'>;

/**
 * Every event notifications consumes; main.ts hands them to runService, tests start the same list. Each is
 * acked only after its notifications are stored; the unique key (kind, commentId, recipientId) makes a
 * redelivery harmless. Once stored, the recipients' cached inboxes (`changes`) are forgotten by the runtime here and in
 * the other instances (every recipient's, so a redelivery after a crash between the two still forgets them).
 */
export const notificationsConsumers = (ctx: NotificationsContext, settings: EventSettings) => {
  const tries = { maxDeliver: settings.EVENT_MAX_DELIVER, backoffMs: settings.EVENT_BACKOFF_MS };
  const store = async (notice: CommentNotice): Promise<void> => {
    await notifyAboutComment(ctx, notice);
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
  ];
};
