import { defineEvent, type EventData } from '@binzip/shared';
import { z } from 'zod';

/** The events community publishes (stream COMMUNITY), as its consumers read them. */

/** `community.comment.created`: notifications tells the board's author. */
export const communityCommentCreated = defineEvent({
  subject: 'community.comment.created',
  stream: 'COMMUNITY',
  version: 1,
  schema: z.object({
    boardId: z.number().int().positive(),
    boardTitle: z.string(),
    boardAuthorId: z.number().int().positive(),
    commentId: z.number().int().positive(),
    commenterId: z.number().int().positive(),
    commenterNickName: z.string(),
    content: z.string(),
    occurredAt: z.string(),
  }),
});
export type CommunityCommentCreatedV1 = EventData<typeof communityCommentCreated>;
