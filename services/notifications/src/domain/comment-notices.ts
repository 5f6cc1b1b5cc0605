import { isDuplicateKeyError, nextId } from '@binzip/shared';
import { type CommunityCommentCreatedV1, type RecordCommentCreatedV1 } from '@binzip/events';
import { insertNotification, type NotificationDoc, type NotificationKind } from '../models';
import type { NotificationsContext } from './context';
import { turnedOffKinds } from './preferences';

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
  /** A reply's parent comment author: his notice is the feed's REPLY (issue 38). */
  replyToUserId?: number | null;
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
    replyToUserId: event.parentCommentAuthorId,
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
export async function notifyAboutComment(ctx: NotificationsContext, notice: CommentNotice, stored?: (doc: NotificationDoc) => void): Promise<number> {
  const model = ctx.models.notifications;
  let created = 0;
  const recipients = recipientsOf(notice);
  // A member who turned the kind off gets no notice (the contract's list included): COMMENT, or REPLY for the
  // author of the comment answered.
  const isReply = (recipientId: number) => notice.kind === 'record' && notice.replyToUserId === recipientId;
  // The preferences and the first recipient's id are asked together (one round trip less for the usual single
  // recipient); an id taken for a recipient who turned the kind off goes to the next one, or is left as a gap.
  const [off, firstId] = await Promise.all([turnedOffKinds(ctx, recipients), recipients.length > 0 ? nextId(model.db, 'notification') : undefined]);
  let spareId = firstId;
  for (const recipientId of recipients) {
    if (off.get(recipientId)?.includes(isReply(recipientId) ? 'REPLY' : 'COMMENT')) continue;
    const id = spareId ?? (await nextId(model.db, 'notification'));
    spareId = undefined;
    const doc: Required<NotificationDoc> = {
      _id: id,
      recipientId,
      kind: notice.kind,
      commentId: notice.commentId,
      reply: isReply(recipientId),
      savedSearchId: null,
      reason: null,
      price: null,
      dealState: null,
      targetId: notice.targetId,
      targetTitle: notice.targetTitle,
      comment: notice.content,
      commenterId: notice.commenterId,
      commenterNickName: notice.commenterNickName,
      read: false,
      eventId: notice.eventId,
      createdAt: occurredAtOrNow(notice.occurredAt),
    };
    // A redelivered event meets the unique key and stores nothing. It burns the id it took, as a withdrawn comment
    // leaves a gap in the comments' ids; asking first would cost every delivery a round trip to spare the rare repeat.
    try {
      await insertNotification(model, doc);
      created++;
      stored?.(doc);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
  ctx.logger.debug('comment notice stored', { kind: notice.kind, commentId: notice.commentId, eventId: notice.eventId, created });
  return created;
}
