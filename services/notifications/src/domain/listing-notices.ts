import { isDuplicateKeyError, nextId } from '@binzip/shared';
import { type HouseListingChangedV1, type HouseListingDecidedV1, type HouseListingPublishedV1 } from '@binzip/events';
import { insertNotification, type ListingKind, type NotificationDoc, type SavedSearchDoc } from '../models';
import type { NotificationsContext } from './context';
import { listingKeys, matches, type PublishedListing } from './matching';
import { turnedOff } from './preferences';

/** What one listing notice says, before it is stored for its recipients. */
interface ListingNotice {
  kind: ListingKind;
  eventId: string;
  houseId: number;
  title: string;
  occurredAt: string;
  savedSearchId?: number;
  reason?: string | null;
  price?: number;
  dealState?: string;
}

function occurredAtOrNow(text: string): Date {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

/**
 * Stores one notice per recipient and answers the ones that are new (for the stream and push). Idempotent: a
 * LISTING_MATCH is unique per (listing, member) whatever event carried it, any other kind per (event, kind, member),
 * so a redelivery or re-publication stores nothing twice. Members who turned the kind off get nothing.
 */
export async function storeListingNotices(
  ctx: NotificationsContext,
  notice: ListingNotice,
  recipients: ReadonlyArray<{ userId: number; savedSearchId?: number }>,
): Promise<NotificationDoc[]> {
  const model = ctx.models.notifications;
  const off = await turnedOff(
    ctx,
    notice.kind,
    recipients.map((r) => r.userId),
  );
  const created: NotificationDoc[] = [];
  for (const recipient of recipients) {
    if (off.has(recipient.userId)) continue;
    const already =
      notice.kind === 'LISTING_MATCH'
        ? await model.exists({ kind: notice.kind, commentId: notice.houseId, recipientId: recipient.userId }).exec()
        : await model.exists({ eventId: notice.eventId, kind: notice.kind, recipientId: recipient.userId }).exec();
    if (already) continue;
    const id = await nextId(model.db, 'notification');
    const doc: Required<NotificationDoc> = {
      _id: id,
      recipientId: recipient.userId,
      kind: notice.kind,
      commentId: notice.kind === 'LISTING_MATCH' ? notice.houseId : id,
      reply: false,
      savedSearchId: recipient.savedSearchId ?? null,
      reason: notice.reason ?? null,
      price: notice.price ?? null,
      dealState: notice.dealState ?? null,
      targetId: notice.houseId,
      targetTitle: notice.title,
      comment: '',
      commenterId: 0,
      commenterNickName: '',
      read: false,
      eventId: notice.eventId,
      createdAt: occurredAtOrNow(notice.occurredAt),
    };
    try {
      await insertNotification(model, doc);
      created.push(doc);
    } catch (err) {
      // A racing delivery stored it first (the unique keys decide).
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
  return created;
}

/** Counts what matching a listing cost: candidates the index returned, each compared once. */
export interface MatchCost {
  candidates: number;
}

/**
 * The members whose alerting saved searches a published listing matches, each once with his first matching
 * search (by id), never the listing's author. Only the searches under the listing's four keys are read (the
 * `matchKeys` index), never every search.
 */
export async function matchingMembers(
  ctx: NotificationsContext,
  listing: PublishedListing,
  cost: MatchCost = { candidates: 0 },
): Promise<Array<{ userId: number; savedSearchId: number }>> {
  const candidates = await ctx.models.savedSearches
    .find({ matchKeys: { $in: listingKeys(listing) } })
    .sort({ _id: 1 })
    .lean<SavedSearchDoc[]>()
    .exec();
  cost.candidates += candidates.length;
  const members = new Map<number, number>();
  for (const search of candidates) {
    if (search.userId === listing.authorId || members.has(search.userId)) continue;
    if (search.alert && matches(search, listing)) members.set(search.userId, search._id);
  }
  return [...members].map(([userId, savedSearchId]) => ({ userId, savedSearchId }));
}

/** `houses.listing.published`: each matching member told once (LISTING_MATCH). */
export async function alertMatches(ctx: NotificationsContext, event: HouseListingPublishedV1): Promise<NotificationDoc[]> {
  const recipients = await matchingMembers(ctx, event);
  const created = await storeListingNotices(
    ctx,
    { kind: 'LISTING_MATCH', eventId: event.eventId, houseId: event.houseId, title: event.title, occurredAt: event.occurredAt },
    recipients,
  );
  ctx.logger.debug('listing alerts stored', { houseId: event.houseId, eventId: event.eventId, matched: recipients.length, created: created.length });
  return created;
}

/** `houses.listing.decided`: the author told of the approval or the rejection and its reason. */
export function tellDecision(ctx: NotificationsContext, event: HouseListingDecidedV1): Promise<NotificationDoc[]> {
  return storeListingNotices(
    ctx,
    {
      kind: event.approved ? 'LISTING_APPROVED' : 'LISTING_REJECTED',
      eventId: event.eventId,
      houseId: event.houseId,
      title: event.title,
      occurredAt: event.occurredAt,
      reason: event.approved ? null : (event.reason ?? ''),
    },
    [{ userId: event.authorId }],
  );
}

/** `houses.listing.changed`: the members who scrapped the listing told of its new price or deal state. */
export function tellScrappers(ctx: NotificationsContext, event: HouseListingChangedV1): Promise<NotificationDoc[]> {
  return storeListingNotices(
    ctx,
    {
      kind: 'SCRAP_CHANGED',
      eventId: event.eventId,
      houseId: event.houseId,
      title: event.title,
      occurredAt: event.occurredAt,
      price: event.price,
      dealState: event.dealState,
    },
    event.scrapperIds.filter((id) => id !== event.authorId).map((userId) => ({ userId })),
  );
}
