import { type OutboxEvent } from '@binzip/shared';
import { houseListingChanged, houseListingPublished } from '@binzip/events';
import type { HouseDoc } from '../models';
import type { HousesContext } from './context';

/** Most scrappers one `houses.listing.changed` names (the event's schema bound); the rest are not told. */
export const MAX_TOLD_SCRAPPERS = 10_000;

/**
 * The events a listing's write carries in its outbox, decided from the listing before and after the write
 * (issue 38), so every write path (create, edit, approval, completion, report, delete) gets the same rule:
 * - `houses.listing.published` when it turns from not listed to listed (a first publication or a return after
 *   a re-approval; notifications tells each member once per listing whatever is published again);
 * - `houses.listing.changed` when its price or deal state changed while it is or was listed, naming the
 *   members who scrapped it.
 * `before` is null for a new listing.
 */
export async function listingEventsOf(ctx: HousesContext, before: HouseDoc | null, after: HouseDoc, now: Date): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  const occurredAt = now.toISOString();
  if (after.listed && !before?.listed) {
    events.push(
      houseListingPublished.outbox({
        houseId: after._id,
        authorId: after.authorId,
        title: after.title,
        rentalType: after.rentalType,
        dealState: after.dealState ?? 'ONGOING',
        houseType: after.houseType ?? null,
        recommendedTag: after.recommendedTag ?? [],
        price: after.price,
        province: after.province ?? null,
        county: after.county ?? null,
        latitude: after.latitude ?? null,
        longitude: after.longitude ?? null,
        occurredAt,
      }),
    );
  }
  const changed = before !== null && !before.tmpYn && !after.tmpYn && (before.price !== after.price || before.dealState !== after.dealState);
  if (changed && (before.listed || after.listed) && !after.deleted) {
    const scraps = await ctx.models.scraps.find({ houseId: after._id }, { userId: 1 }).limit(MAX_TOLD_SCRAPPERS).lean<Array<{ userId: number }>>().exec();
    const scrapperIds = scraps.map((s) => s.userId).filter((id) => id !== after.authorId);
    if (scrapperIds.length > 0) {
      events.push(
        houseListingChanged.outbox({
          houseId: after._id,
          authorId: after.authorId,
          title: after.title,
          price: after.price,
          dealState: after.dealState ?? 'APPLYING',
          previousPrice: before.price,
          previousDealState: before.dealState,
          scrapperIds,
          occurredAt,
        }),
      );
    }
  }
  return events;
}
