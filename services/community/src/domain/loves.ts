import { AppError, isDuplicateKeyError, type AuthClaims } from '@binzip/shared';
import type { CommunityModels } from '../models';
import { liveBoard } from './boards';

/**
 * The unique (user, board) index decides who loved first; the board's count moves only after the
 * insert won, and only on a live board (a board deleted in between takes the love back: C0001).
 */
export async function love(models: CommunityModels, user: AuthClaims, boardId: number): Promise<number> {
  await liveBoard(models, boardId);
  let loveId: unknown;
  try {
    const created = await models.Love.create({ userId: user.userId, boardId, boardDeleted: false, createdAt: new Date() });
    loveId = created._id;
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new AppError('P0000');
    throw err;
  }
  const counted = await models.Board.updateOne({ _id: boardId, deleted: false }, { $inc: { loveCount: 1 } }).exec();
  if (counted.matchedCount === 0) {
    await models.Love.deleteOne({ _id: loveId }).exec();
    throw AppError.notFound();
  }
  return boardId;
}

export async function unlove(models: CommunityModels, user: AuthClaims, boardId: number): Promise<void> {
  await liveBoard(models, boardId);
  const removed = await models.Love.findOneAndDelete({ userId: user.userId, boardId }).lean().exec();
  if (!removed) throw AppError.notFound();
  await models.Board.updateOne({ _id: boardId }, { $inc: { loveCount: -1 } }).exec();
}

export async function loves(models: CommunityModels, user: AuthClaims, boardId: number): Promise<boolean> {
  await liveBoard(models, boardId);
  return (await models.Love.exists({ userId: user.userId, boardId }).exec()) !== null;
}
