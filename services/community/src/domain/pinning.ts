import { AppError } from '@binzip/shared';
import type { CommunityModels } from '../models';

/** backoffice.md: at most this many promotion posts are pinned at once. */
export const MAX_PINNED_BOARDS = 10;

const PINNED = { fixed: true, deleted: false };

/**
 * Pins or unpins a promotion (ADVERTISEMENT) post. Pinning sets the flag, then counts: over the limit it is
 * set back and answered B0001. Two racing pins of the 10th slot may both be refused (never both kept), so the
 * limit holds without a lock; pinning an already pinned post is a no-op.
 */
export async function setPinned(models: CommunityModels, boardId: number, fixed: boolean): Promise<number> {
  const board = await models.Board.findOne({ _id: boardId, deleted: false }, { prefixCategory: 1, fixed: 1 }).lean().exec();
  if (!board) throw AppError.notFound();
  if (board.prefixCategory !== 'ADVERTISEMENT') throw AppError.invalid('홍보 게시글만 고정할 수 있습니다.');
  if (!fixed) {
    await models.Board.updateOne({ _id: boardId }, { $set: { fixed: false } }).exec();
    return boardId;
  }
  if (board.fixed) return boardId;
  if ((await models.Board.countDocuments(PINNED).exec()) >= MAX_PINNED_BOARDS) throw new AppError('B0001');
  const pinned = await models.Board.updateOne({ _id: boardId, deleted: false, fixed: false }, { $set: { fixed: true } }).exec();
  if (pinned.modifiedCount === 1 && (await models.Board.countDocuments(PINNED).exec()) > MAX_PINNED_BOARDS) {
    await models.Board.updateOne({ _id: boardId }, { $set: { fixed: false } }).exec();
    throw new AppError('B0001');
  }
  return boardId;
}
