import { projectedUserModel, type ProjectedUser } from '@binzip/shared';
import type { Connection, Model } from 'mongoose';
import { boardModel, type BoardModel } from './board';
import { commentModel, type CommentModel } from './comment';
import { loveModel, type LoveModel } from './love';

export * from './board';
export * from './comment';
export * from './love';

export interface CommunityModels {
  connection: Connection;
  Board: BoardModel;
  Comment: CommentModel;
  Love: LoveModel;
  User: Model<ProjectedUser>;
}

export function communityModels(connection: Connection): CommunityModels {
  return { connection, Board: boardModel(connection), Comment: commentModel(connection), Love: loveModel(connection), User: projectedUserModel(connection) };
}

/** Builds every index before the service takes requests: the love rule depends on its unique index. */
export async function prepareStore(connection: Connection): Promise<CommunityModels> {
  const models = communityModels(connection);
  await Promise.all([models.Board.init(), models.Comment.init(), models.Love.init(), models.User.init()]);
  return models;
}
