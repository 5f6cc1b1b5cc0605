import { AppError, auditEvent, isAdmin, nextId, sanitizeStoredBodies, toIsoOffset, type AuthClaims } from '@binzip/shared';
import { isListed, type DealState, type HouseDoc } from '../models';
import { changeHouse, isAuthor, publishesAtOnce, readableHouse } from './access';
import type { HousesContext } from './context';
import { placeOnWrite } from './geocoding';
import { listingEventsOf } from './listing-events';
import { listingInput, type ListingBody } from './listing-input';
import { authorsOf, toDetail, type HouseDetail, type HouseModeration } from './render';

/** Create, edit, delete, read, complete: the listing's own state machine. */

export async function createListing(ctx: HousesContext, caller: AuthClaims, body: ListingBody): Promise<number> {
  const input = listingInput(body);
  const now = ctx.now();
  const houseId = await nextId(ctx.models.houses.db, 'house');
  const dealState: DealState | null = input.tmpYn ? null : publishesAtOnce(caller) ? 'ONGOING' : 'APPLYING';
  const state = { tmpYn: input.tmpYn, dealState, reported: false, deleted: false };
  const house: HouseDoc = {
    _id: houseId,
    authorId: caller.userId,
    authorType: caller.userType,
    ...input.content,
    ...placeOnWrite(null, input, now),
    ...state,
    listed: isListed(state),
    rejectReason: null,
    rev: 0,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  // A listing public at once (an agent's or administrator's save) carries its publication in the same write.
  const pendingEvents = await listingEventsOf(ctx, null, house, now);
  await ctx.models.houses.create({ ...house, pendingEvents });
  if (pendingEvents.length > 0) ctx.eventsPending({ model: ctx.models.houses, id: houseId });
  ctx.geocodingPending?.();
  return houseId;
}

export async function updateListing(ctx: HousesContext, caller: AuthClaims, input: { houseId: number; listing: ListingBody }): Promise<number> {
  const { houseId } = input;
  const listing = listingInput(input.listing);
  await changeHouse(ctx, houseId, (house) => {
    if (!house || house.deleted) throw AppError.notFound();
    if (!isAuthor(house, caller)) throw AppError.forbidden();
    if (listing.tmpYn && !house.tmpYn) throw AppError.invalid('저장된 게시글은 임시저장할 수 없습니다.');
    const dealState = listing.tmpYn ? null : nextDealStateOnEdit(house, caller);
    const state = { tmpYn: listing.tmpYn, dealState, reported: house.reported, deleted: false };
    return {
      ...listing.content,
      ...placeOnWrite(house, listing, ctx.now()),
      ...state,
      listed: isListed(state),
      authorType: caller.userType,
      rejectReason: null,
      updatedAt: ctx.now(),
    };
  });
  ctx.geocodingPending?.();
  return houseId;
}

/** An administrator deleting someone else's listing is a moderation action: its audit entry goes with the write. */
export async function removeListing(ctx: HousesContext, caller: AuthClaims, input: { houseId: number }): Promise<void> {
  await changeHouse(
    ctx,
    input.houseId,
    (house) => {
      if (!house || house.deleted) throw AppError.notFound();
      if (!isAuthor(house, caller) && !isAdmin(caller)) throw AppError.forbidden();
      return { deleted: true, deletedAt: ctx.now(), listed: false };
    },
    (house) =>
      isAuthor(house, caller)
        ? []
        : [auditEvent('houses', caller, { action: 'DELETE', targetType: 'HOUSE', targetId: house._id, memberId: house.authorId }, ctx.now())],
  );
}

/** One listing by id; the caller is absent on the public detail (see `canRead` for who may read what). */
export async function listingDetail(ctx: HousesContext, caller: AuthClaims | undefined, input: { houseId: number }): Promise<HouseDetail> {
  const { houseId } = input;
  // The caller's scrap is asked beside the listing, not after it: one round trip less for a member.
  const [house, scrap] = await Promise.all([
    removedForItsAuthor(ctx, houseId, caller).then((removed) => removed ?? readableHouse(ctx, houseId, caller)),
    caller ? ctx.models.scraps.exists({ userId: caller.userId, houseId }).exec() : null,
  ]);
  const authors = await authorsOf(ctx.models.users, [house]);
  const detail = toDetail(house, authors, scrap !== null);
  // The author (and administrators) read what the administrators decided (issue 40); nobody else does.
  const moderation = isAuthor(house, caller) || isAdmin(caller) ? moderationOf(house) : undefined;
  return moderation ? { ...detail, moderation } : detail;
}

/**
 * A listing the administrators took down after a report stays readable by its author (only), so the author
 * reads why (issue 40); deleted otherwise answers C0001 as before.
 */
async function removedForItsAuthor(ctx: HousesContext, houseId: number, caller: AuthClaims | undefined): Promise<HouseDoc | undefined> {
  if (!caller) return undefined;
  const house = await ctx.models.houses
    .findOne({ _id: houseId, deleted: true, authorId: caller.userId, 'moderation.action': 'REMOVE' })
    .lean<HouseDoc>()
    .exec();
  return house ?? undefined;
}

/** What the administrators decided about a listing, as its author reads it: rejected, taken down, or report dismissed. */
export function moderationOf(house: HouseDoc): HouseModeration | undefined {
  if (house.deleted && house.moderation?.action === 'REMOVE') {
    return { state: 'REMOVED', reason: house.moderation.note, decidedAt: toIsoOffset(house.moderation.decidedAt) };
  }
  if (house.dealState === 'REJECTED') return { state: 'REJECTED', reason: house.rejectReason || null, decidedAt: null };
  if (house.moderation?.action === 'DISMISS') {
    return { state: 'REPORT_DISMISSED', reason: house.moderation.note, decidedAt: toIsoOffset(house.moderation.decidedAt) };
  }
  return undefined;
}

/** Deal completion (decisions.md): the author marks an ONGOING listing COMPLETED. */
export async function completeDeal(ctx: HousesContext, caller: AuthClaims, input: { houseId: number }): Promise<number> {
  const { houseId } = input;
  await changeHouse(ctx, houseId, (house) => {
    if (!house) throw AppError.notFound();
    if (!isAuthor(house, caller)) throw AppError.forbidden();
    if (house.deleted || house.tmpYn || house.reported || house.dealState !== 'ONGOING') throw new AppError('H0004');
    return { dealState: 'COMPLETED', listed: isListed({ ...house, dealState: 'COMPLETED' }) };
  });
  return houseId;
}

/**
 * A general user's edit sends the listing back to waiting (whatever its state); an agent's or
 * administrator's keeps an approved listing's deal state and approves anything else at once.
 */
function nextDealStateOnEdit(house: HouseDoc, caller: AuthClaims): DealState {
  if (!publishesAtOnce(caller)) return 'APPLYING';
  return house.dealState === 'ONGOING' || house.dealState === 'COMPLETED' ? house.dealState : 'ONGOING';
}

/**
 * Listings stored before bodies were sanitized are cleaned once at start (decisions-local.md): a migration
 * rather than cleaning on read, so every reader gets the same safe body at no per-request cost.
 */
export async function sanitizeStoredListings(ctx: HousesContext): Promise<void> {
  await sanitizeStoredBodies<HouseDoc>({ model: ctx.models.houses, field: 'code', logger: ctx.logger });
}
