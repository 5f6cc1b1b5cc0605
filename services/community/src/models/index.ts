import { projectedUserModel } from '@binzip/shared';
import { pictureModel } from '@binzip/shared/media';
import type { Connection } from 'mongoose';
import { boardModel } from './board';
import { boardReportModel } from './board-report';
import { commentModel } from './comment';
import { loveModel } from './love';

export * from './board';
export * from './board-report';
export * from './comment';
export * from './love';

export type CommunityModels = ReturnType<typeof communityModels>;

export function communityModels(connection: Connection) {
  return {
    boards: boardModel(connection),
    boardReports: boardReportModel(connection),
    comments: commentModel(connection),
    loves: loveModel(connection),
    users: projectedUserModel(connection),
    /** Uploaded pictures (their files are in the picture store). */
    pictures: pictureModel(connection),
  };
}

/** Builds every index before the service takes requests: the love rule depends on its unique index. */
export async function initModels(models: CommunityModels): Promise<void> {
  await Promise.all([
    models.boards.init(),
    models.boardReports.init(),
    models.comments.init(),
    models.loves.init(),
    models.users.init(),
    models.pictures.init(),
  ]);
}
