import { recordCommentCreated, type OutboxDeclaration } from '@binzip/shared';
import type { RecordsModels } from '../models';

/** What records publishes: each comment carries its `records.comment.created` (notifications reads it). */
export const recordsOutbox = (models: RecordsModels): OutboxDeclaration => ({ events: [recordCommentCreated], models: [models.comments] });
