import { AppError, isDuplicateKeyError, type AuthClaims } from '@binzip/shared';
import { liveBoard } from './boards';
import type { CommunityContext } from './context';

/**
 * The unique (user, board) index decides who loved first; the board's count moves only after the
 * insert won, and only on a live board (a board deleted in between takes the love back: C0001).
 */
export async function love(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }): Promise<number> {
  const { boardId } = input;
  await liveBoard(ctx, boardId);
  let loveId: unknown;
  try {
    const created = await ctx.models.loves.create({ userId: user.userId, boardId, boardDeleted: false, createdAt: ctx.now() });
    loveId = created._id;
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new AppError('P0000');
    throw err;
  }
  const counted = await ctx.models.boards.updateOne({ _id: boardId, deleted: false }, { $inc: { loveCount: 1 } }).exec();
  if (counted.matchedCount === 0) {
    await ctx.models.loves.deleteOne({ _id: loveId }).exec();
    throw AppError.notFound();
  }
  return boardId;
}

export async function unlove(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }): Promise<void> {
  const { boardId } = input;
  await liveBoard(ctx, boardId);
  const removed = await ctx.models.loves.findOneAndDelete({ userId: user.userId, boardId }).lean().exec();
  if (!removed) throw AppError.notFound();
  await ctx.models.boards.updateOne({ _id: boardId }, { $inc: { loveCount: -1 } }).exec();
}

/** Whether the caller loves the board. */
export async function loves(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }): Promise<boolean> {
  const { boardId } = input;
  await liveBoard(ctx, boardId);
  return (await ctx.models.loves.exists({ userId: user.userId, boardId }).exec()) !== null;
}
