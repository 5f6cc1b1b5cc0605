import { defineEvent, defineStream, type EventData } from '@binzip/shared';
import { z } from 'zod';

/** The events records publishes, as its consumers read them, and the stream that keeps them. */

/** Every event records publishes; consumed within seconds, kept a bounded time and size for a consumer catching up. */
export const recordsStream = defineStream({ name: 'RECORDS', subjects: ['records.>'], purpose: 'events' });

/** `records.comment.created`: notifications tells the record's author and, for a reply, the parent comment's. */
export const recordCommentCreated = defineEvent({
  subject: 'records.comment.created',
  stream: recordsStream,
  version: 1,
  schema: z.object({
    recordId: z.number().int().positive(),
    recordTitle: z.string(),
    recordAuthorId: z.number().int().positive(),
    /** Present when the comment is a reply: the author of the comment replied to. */
    parentCommentAuthorId: z.number().int().positive().nullable(),
    commentId: z.number().int().positive(),
    commenterId: z.number().int().positive(),
    commenterNickName: z.string(),
    content: z.string(),
    occurredAt: z.string(),
  }),
});
export type RecordCommentCreatedV1 = EventData<typeof recordCommentCreated>;
