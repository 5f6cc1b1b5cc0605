import { pictureHashesIn } from '@binzip/shared/media';
import type { HousesContext } from './context';

/**
 * The pictures listings use (for the unused-picture sweep): named in `imageUrls` or in the body, by a listing
 * that is not deleted or was deleted after `deletedSince` (its retention). One pass over the listings' picture
 * fields, run by the sweep only when some picture is old enough to judge.
 */
export async function referencedPictures(ctx: HousesContext, deletedSince: Date): Promise<Set<string>> {
  const used = new Set<string>();
  const cursor = ctx.models.houses.find({}, { imageUrls: 1, code: 1, deleted: 1, deletedAt: 1 }).lean().cursor();
  for await (const house of cursor) {
    if (house.deleted && (house.deletedAt ?? new Date(0)) < deletedSince) continue;
    for (const text of [...house.imageUrls, house.code ?? '']) for (const hash of pictureHashesIn(text)) used.add(hash);
  }
  return used;
}
