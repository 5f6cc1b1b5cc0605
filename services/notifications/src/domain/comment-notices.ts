import { isDuplicateKeyError, nextId, type CommunityCommentCreatedV1, type RecordCommentCreatedV1 } from '@binzip/shared';
import type { NotificationKind } from '../models';
import type { NotificationsContext } from './context';

/** A saved comment, whichever service it was written in. */
export interface CommentNotice {
  kind: NotificationKind;
  eventId: string;
  commentId: number;
  targetId: number;
  targetTitle: string;
  content: string;
  commenterId: number;
  commenterNickName: string;
  occurredAt: string;
  /** Everyone the comment concerns, before the rules below are applied. */
  concernedUserIds: Array<number | null>;
}

export function boardCommentNotice(event: CommunityCommentCreatedV1): CommentNotice {
  return {
    kind: 'board',
    eventId: event.eventId,
    commentId: event.commentId,
    targetId: event.boardId,
    targetTitle: event.boardTitle,
    content: event.content,
    commenterId: event.commenterId,
    commenterNickName: event.commenterNickName,
    occurredAt: event.occurredAt,
    concernedUserIds: [event.boardAuthorId],
  };
}

export function recordCommentNotice(event: RecordCommentCreatedV1): CommentNotice {
  return {
    kind: 'record',
    eventId: event.eventId,
    commentId: event.commentId,
    targetId: event.recordId,
    targetTitle: event.recordTitle,
    content: event.content,
    commenterId: event.commenterId,
    commenterNickName: event.commenterNickName,
    occurredAt: event.occurredAt,
    concernedUserIds: [event.recordAuthorId, event.parentCommentAuthorId],
  };
}

/** Never the commenter, and one notice per user even when the record author also wrote the parent comment. */
export function recipientsOf(notice: CommentNotice): number[] {
  const recipients = new Set<number>();
  for (const userId of notice.concernedUserIds) {
    if (userId !== null && userId !== notice.commenterId) recipients.add(userId);
  }
  return [...recipients];
}

function occurredAtOrNow(text: string): Date {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

/**
 * Stores the notifications a comment causes; safe to run any number of times for one comment (the unique
 * key absorbs repeats). Returns how many were new. Any other failure propagates so the event is redelivered.
 */
export async function notifyAboutComment(ctx: NotificationsContext, notice: CommentNotice): Promise<number> {
  const model = ctx.models.notifications;
  let created = 0;
  for (const recipientId of recipientsOf(notice)) {
    const key = { kind: notice.kind, commentId: notice.commentId, recipientId };
    // Checking first keeps redeliveries from burning ids; the unique index still settles a race.
    if (await model.exists(key).exec()) continue;
    try {
      await model.create({
        _id: await nextId(model.db, 'notification'),
        ...key,
        targetId: notice.targetId,
        targetTitle: notice.targetTitle,
        comment: notice.content,
        commenterId: notice.commenterId,
        commenterNickName: notice.commenterNickName,
        read: false,
        eventId: notice.eventId,
        createdAt: occurredAtOrNow(notice.occurredAt),
      });
      created++;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
  ctx.logger.debug('comment notice stored', { kind: notice.kind, commentId: notice.commentId, eventId: notice.eventId, created });
  return created;
}
