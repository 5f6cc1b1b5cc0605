import { communityCommentCreated, type OutboxDeclaration } from '@binzip/shared';
import type { CommunityModels } from '../models';

/** What community publishes: each comment carries its `community.comment.created` (notifications reads it). */
export const communityOutbox = (models: CommunityModels): OutboxDeclaration => ({ events: [communityCommentCreated], models: [models.comments] });
