import { projectedUserModel } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { commentModel } from './comment';
import { recordModel } from './record';
import { reviewModel } from './review';
import { templateModel } from './template';
import { viewModel } from './view';

export * from './comment';
export * from './record';
export * from './review';
export * from './template';
export * from './view';

export type RecordsModels = ReturnType<typeof recordsModels>;

export function recordsModels(connection: Connection) {
  return {
    records: recordModel(connection),
    reviews: reviewModel(connection),
    comments: commentModel(connection),
    views: viewModel(connection),
    templates: templateModel(connection),
    users: projectedUserModel(connection),
  };
}

/** Builds the indexes the rules rely on (unique comment paths, the views' unique key) before traffic arrives. */
export async function initModels(models: RecordsModels): Promise<void> {
  await Promise.all([models.records.init(), models.reviews.init(), models.comments.init(), models.views.init(), models.templates.init(), models.users.init()]);
}
