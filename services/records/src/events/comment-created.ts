import { RECORDS_COMMENT_CREATED, newOutboxEvent, recordCommentCreatedV1, type OutboxEvent } from '@binzip/shared';

export interface CommentCreatedFacts {
  recordId: number;
  recordTitle: string;
  recordAuthorId: number;
  parentCommentAuthorId: number | null;
  commentId: number;
  commenterId: number;
  commenterNickName: string;
  content: string;
  occurredAt: Date;
}

/** The outbox entry stored with a new comment; validated here so a bad payload never reaches the stream. */
export function commentCreatedEvent(facts: CommentCreatedFacts): OutboxEvent {
  return newOutboxEvent(RECORDS_COMMENT_CREATED, (eventId) =>
    recordCommentCreatedV1.parse({ v: 1, eventId, ...facts, occurredAt: facts.occurredAt.toISOString() }),
  );
}
