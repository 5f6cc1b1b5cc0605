import { defineEvent, defineStream, type EventData } from '@binzip/shared';
import { z } from 'zod';

/** The events community publishes, as its consumers read them, and the stream that keeps them. */

/** Every event community publishes; consumed within seconds, kept a bounded time and size for a consumer catching up. */
export const communityStream = defineStream({ name: 'COMMUNITY', subjects: ['community.>'], purpose: 'events' });

/** `community.comment.created`: notifications tells the board's author. */
export const communityCommentCreated = defineEvent({
  subject: 'community.comment.created',
  stream: communityStream,
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
