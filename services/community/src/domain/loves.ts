import { AppError, isDuplicateKeyError, type AuthClaims } from '@binzip/shared';
import { liveBoard } from './boards';
import type { CommunityContext } from './context';

/**
 * The type (prefixCategory) of the board a love or unlove changed and its love count before and after, as the
 * write itself read and changed them.
 */
export type BoardTypeSeen = (seen: { prefixCategory: string; from: number; to: number }) => void;

/**
 * The unique (user, board) index decides who loved first; the board's count moves only after the
 * insert won, and only on a live board (a board deleted in between takes the love back: C0001). The board's
 * check and the insert go to the store together (one round trip less on the site's busiest write): a board that
 * is not live takes back a love the insert made, and answers C0001 before a repeated love's P0000, as before.
 * `seen` gets the board's type from the count's own write (the cache's love order), so nothing asks for it again.
 */
export async function love(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }, seen?: BoardTypeSeen): Promise<number> {
  const { boardId } = input;
  const [live, created] = await Promise.allSettled([
    liveBoard(ctx, boardId),
    ctx.models.loves.create({ userId: user.userId, boardId, boardDeleted: false, createdAt: ctx.now() }),
  ]);
  if (live.status === 'rejected') {
    if (created.status === 'fulfilled') await ctx.models.loves.deleteOne({ _id: created.value._id }).exec();
    throw live.reason;
  }
  if (created.status === 'rejected') {
    if (isDuplicateKeyError(created.reason)) throw new AppError('P0000');
    throw created.reason;
  }
  const counted = await ctx.models.boards
    .findOneAndUpdate({ _id: boardId, deleted: false }, { $inc: { loveCount: 1 } }, { projection: { prefixCategory: 1, loveCount: 1 } })
    .lean<{ prefixCategory: string; loveCount: number }>()
    .exec();
  if (!counted) {
    await ctx.models.loves.deleteOne({ _id: created.value._id }).exec();
    throw AppError.notFound();
  }
  seen?.({ prefixCategory: counted.prefixCategory, from: counted.loveCount, to: counted.loveCount + 1 });
  return boardId;
}

export async function unlove(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }, seen?: BoardTypeSeen): Promise<void> {
  const { boardId } = input;
  const board = await liveBoard(ctx, boardId);
  const removed = await ctx.models.loves.findOneAndDelete({ userId: user.userId, boardId }).lean().exec();
  if (!removed) throw AppError.notFound();
  // The count before, as this update found it (another love may have moved it since the board was read).
  const counted = await ctx.models.boards
    .findOneAndUpdate({ _id: boardId }, { $inc: { loveCount: -1 } }, { projection: { loveCount: 1 } })
    .lean<{ loveCount: number }>()
    .exec();
  const from = counted?.loveCount ?? board.loveCount;
  seen?.({ prefixCategory: board.prefixCategory, from, to: from - 1 });
}

/** Whether the caller loves the board. */
export async function loves(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }): Promise<boolean> {
  const { boardId } = input;
  await liveBoard(ctx, boardId);
  return (await ctx.models.loves.exists({ userId: user.userId, boardId }).exec()) !== null;
}
