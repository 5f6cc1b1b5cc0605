import { AppError, type AuthClaims } from '@binzip/shared';
import type { CommunityContext } from './context';

/** backoffice.md: at most this many promotion posts are pinned at once. */
export const MAX_PINNED_BOARDS = 10;

const PINNED = { fixed: true, deleted: false };

/** B0001 unless another post can still be pinned (asked before a write that would pin one). */
export async function assertPinRoom(ctx: CommunityContext): Promise<void> {
  if ((await ctx.models.boards.countDocuments(PINNED).exec()) >= MAX_PINNED_BOARDS) throw new AppError('B0001');
}

/** Asked after a write that pinned a post: two racing writes may both have taken the last slot. */
export async function pinLimitExceeded(ctx: CommunityContext): Promise<boolean> {
  return (await ctx.models.boards.countDocuments(PINNED).exec()) > MAX_PINNED_BOARDS;
}

/**
 * Pins or unpins a promotion (ADVERTISEMENT) post. Pinning sets the flag, then counts: over the limit it is
 * set back and answered B0001. Two racing pins of the 10th slot may both be refused (never both kept), so the
 * limit holds without a lock; pinning an already pinned post is a no-op.
 */
export async function setPinned(ctx: CommunityContext, _admin: AuthClaims, input: { boardId: number; fixed: boolean }): Promise<number> {
  const { models } = ctx;
  const { boardId, fixed } = input;
  const board = await models.boards.findOne({ _id: boardId, deleted: false }, { prefixCategory: 1, fixed: 1 }).lean().exec();
  if (!board) throw AppError.notFound();
  if (board.prefixCategory !== 'ADVERTISEMENT') throw AppError.invalid('홍보 게시글만 고정할 수 있습니다.');
  if (!fixed) {
    await models.boards.updateOne({ _id: boardId }, { $set: { fixed: false } }).exec();
    return boardId;
  }
  if (board.fixed) return boardId;
  await assertPinRoom(ctx);
  const pinned = await models.boards.updateOne({ _id: boardId, deleted: false, fixed: false }, { $set: { fixed: true } }).exec();
  if (pinned.modifiedCount === 1 && (await pinLimitExceeded(ctx))) {
    await models.boards.updateOne({ _id: boardId }, { $set: { fixed: false } }).exec();
    throw new AppError('B0001');
  }
  return boardId;
}
