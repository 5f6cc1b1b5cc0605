import { defineEvent, type EventData } from '@binzip/shared';
import { z } from 'zod';

/** The events records publishes (stream RECORDS), as its consumers read them. */

/** `records.comment.created`: notifications tells the record's author and, for a reply, the parent comment's. */
export const recordCommentCreated = defineEvent({
  subject: 'records.comment.created',
  stream: 'RECORDS',
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
