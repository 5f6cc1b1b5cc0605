import {
  COMMUNITY_COMMENT_CREATED,
  communityCommentCreatedV1,
  RECORDS_COMMENT_CREATED,
  recordCommentCreatedV1,
  type EventBus,
  type RunningConsumer,
} from '@binzip/shared';
import type { NotificationsContext } from '../domain/context';
import { boardCommentNotice, notifyAboutComment, recordCommentNotice, type CommentNotice } from '../domain/comment-notices';

export const BOARD_COMMENTS_DURABLE = 'notifications-board-comments';
export const RECORD_COMMENTS_DURABLE = 'notifications-record-comments';

export interface CommentSubscriberOptions {
  bus: EventBus;
  maxDeliver: number;
  backoffMs: number[];
}

/**
 * Durable consumers for the comment events of community and records. Each event is acked only after its
 * notifications are stored; a failed write is redelivered with backoff up to `maxDeliver` times.
 */
export async function startCommentSubscribers(ctx: NotificationsContext, options: CommentSubscriberOptions): Promise<RunningConsumer> {
  const store = async (notice: CommentNotice): Promise<void> => {
    const created = await notifyAboutComment(ctx, notice);
    ctx.logger.debug('comment notice stored', { kind: notice.kind, commentId: notice.commentId, eventId: notice.eventId, created });
  };
  const common = { maxDeliver: options.maxDeliver, backoffMs: options.backoffMs, deliverPolicy: 'all' as const };
  const board = await options.bus.consume({
    ...common,
    stream: 'COMMUNITY',
    durable: BOARD_COMMENTS_DURABLE,
    filterSubject: COMMUNITY_COMMENT_CREATED,
    schema: communityCommentCreatedV1,
    handle: (event) => store(boardCommentNotice(event)),
  });
  let record: RunningConsumer;
  try {
    record = await options.bus.consume({
      ...common,
      stream: 'RECORDS',
      durable: RECORD_COMMENTS_DURABLE,
      filterSubject: RECORDS_COMMENT_CREATED,
      schema: recordCommentCreatedV1,
      handle: (event) => store(recordCommentNotice(event)),
    });
  } catch (err) {
    await board.stop();
    throw err;
  }
  return {
    stop: async () => {
      await Promise.all([board.stop(), record.stop()]);
    },
  };
}
