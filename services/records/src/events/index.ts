import { adminActionRecorded, type OutboxDeclaration } from '@binzip/shared';
import { recordCommentCreated } from '@binzip/events';
import type { RecordsModels } from '../models';

/**
 * What records publishes: each comment carries its `records.comment.created` (notifications reads it); an
 * administrator's deletion of someone else's comment carries its `audit.records` (issue 40).
 */
export const recordsOutbox = (models: RecordsModels): OutboxDeclaration => ({
  events: [recordCommentCreated, adminActionRecorded],
  models: [models.comments],
});
