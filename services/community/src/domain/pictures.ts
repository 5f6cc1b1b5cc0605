import { pictureHashesIn } from '@binzip/shared/media';
import type { CommunityContext } from './context';

/**
 * The pictures posts use (for the unused-picture sweep): named in `imageUrls` or in the body, by a post that is
 * not deleted or was deleted (its last update) after `deletedSince` (its retention).
 */
export async function referencedPictures(ctx: CommunityContext, deletedSince: Date): Promise<Set<string>> {
  const used = new Set<string>();
  const cursor = ctx.models.boards.find({}, { imageUrls: 1, code: 1, deleted: 1, updatedAt: 1 }).lean().cursor();
  for await (const board of cursor) {
    if (board.deleted && board.updatedAt < deletedSince) continue;
    for (const text of [...board.imageUrls, board.code]) for (const hash of pictureHashesIn(text)) used.add(hash);
  }
  return used;
}
