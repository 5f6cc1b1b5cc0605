import { AppError, isDuplicateKeyError, storedCollection, type AuthClaims } from '@binzip/shared';
import { Types } from 'mongoose';
import { liveBoard } from './boards';
import type { CommunityContext } from './context';
import type { LoveDoc } from '../models';

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
    // Every field given in its stored type: written through the driver, without building a mongoose document.
    storedCollection(ctx.models.loves).insertOne({ _id: new Types.ObjectId(), userId: user.userId, boardId, boardDeleted: false, createdAt: ctx.now() }),
  ]);
  if (live.status === 'rejected') {
    if (created.status === 'fulfilled') await ctx.models.loves.deleteOne({ _id: created.value.insertedId }).exec();
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
    await ctx.models.loves.deleteOne({ _id: created.value.insertedId }).exec();
    throw AppError.notFound();
  }
  seen?.({ prefixCategory: counted.prefixCategory, from: counted.loveCount, to: counted.loveCount + 1 });
  return boardId;
}

/**
 * The board's check and the love's removal go to the store together (one round trip less): a board that is not
 * live answers C0001 as before, before the missing love's C0001, and puts back the love the removal took, as
 * its board's delete leaves it (`boardDeleted`, `hideFromOwnLists`), which no list shows.
 */
export async function unlove(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }, seen?: BoardTypeSeen): Promise<void> {
  const { boardId } = input;
  const [live, removing] = await Promise.allSettled([
    liveBoard(ctx, boardId),
    ctx.models.loves.findOneAndDelete({ userId: user.userId, boardId }).lean<LoveDoc>().exec(),
  ]);
  if (live.status === 'rejected') {
    if (removing.status === 'fulfilled' && removing.value) await putBack(ctx, { ...removing.value, boardDeleted: true });
    throw live.reason;
  }
  if (removing.status === 'rejected') throw removing.reason;
  const board = live.value;
  if (!removing.value) throw AppError.notFound();
  // The count before, as this update found it (another love may have moved it since the board was read).
  const counted = await ctx.models.boards
    .findOneAndUpdate({ _id: boardId }, { $inc: { loveCount: -1 } }, { projection: { loveCount: 1 } })
    .lean<{ loveCount: number }>()
    .exec();
  const from = counted?.loveCount ?? board.loveCount;
  seen?.({ prefixCategory: board.prefixCategory, from, to: from - 1 });
}

/** A love removed by mistake, stored again as it was (a love that came back meanwhile is the same love). */
async function putBack(ctx: CommunityContext, love: LoveDoc): Promise<void> {
  try {
    await storedCollection(ctx.models.loves).insertOne(love);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** Whether the caller loves the board. */
export async function loves(ctx: CommunityContext, user: AuthClaims, input: { boardId: number }): Promise<boolean> {
  const { boardId } = input;
  await liveBoard(ctx, boardId);
  return (await ctx.models.loves.exists({ userId: user.userId, boardId }).exec()) !== null;
}
