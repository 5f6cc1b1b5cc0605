import { projectedUserModel, type ProjectedUser } from '@binzip/shared';
import type { Connection, Model } from 'mongoose';
import { commentModel, type CommentDoc } from './comment';
import { recordModel, type RecordDoc } from './record';
import { reviewModel, type ReviewDoc } from './review';
import { templateModel, type TemplateDoc } from './template';
import { viewModel, type ViewDoc } from './view';

export interface RecordsModels {
  connection: Connection;
  records: Model<RecordDoc>;
  reviews: Model<ReviewDoc>;
  comments: Model<CommentDoc>;
  views: Model<ViewDoc>;
  templates: Model<TemplateDoc>;
  users: Model<ProjectedUser>;
}

export function recordsModels(connection: Connection): RecordsModels {
  return {
    connection,
    records: recordModel(connection),
    reviews: reviewModel(connection),
    comments: commentModel(connection),
    views: viewModel(connection),
    templates: templateModel(connection),
    users: projectedUserModel(connection),
  };
}

/** Builds the indexes the rules rely on (unique comment paths) before traffic arrives. */
export async function initModels(models: RecordsModels): Promise<void> {
  await Promise.all([models.records.init(), models.reviews.init(), models.comments.init(), models.views.init(), models.templates.init(), models.users.init()]);
}

export type { CommentDoc, RecordDoc, ReviewDoc, TemplateDoc, ViewDoc };
