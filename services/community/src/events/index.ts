import { adminActionRecorded, type OutboxDeclaration } from '@binzip/shared';
import { communityCommentCreated } from '@binzip/events';
import type { CommunityModels } from '../models';

/**
 * What community publishes: each comment carries its `community.comment.created` (notifications reads it); an
 * administrator's pin, unpin or deletion carries its `audit.community` in the post's or comment's write (issue 40).
 */
export const communityOutbox = (models: CommunityModels): OutboxDeclaration => ({
  events: [communityCommentCreated, adminActionRecorded],
  models: [models.comments, models.boards],
});
