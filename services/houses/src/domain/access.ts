import { AppError, CONFLICT, isAdmin, retryOnConflict, storedCollection, type AuthClaims, type OutboxEvent } from '@binzip/shared';
import type { HouseDoc } from '../models';
import type { HousesContext } from './context';
import { listingEventsOf } from './listing-events';

export const isAuthor = (house: HouseDoc, claims: AuthClaims | undefined): boolean => claims !== undefined && house.authorId === claims.userId;

/**
 * Who may read a listing by id: its author always (drafts included); nobody else a draft or a deleted
 * listing; an administrator any saved listing; everyone else approved ones. A report takes a listing out of
 * the public list only (decisions.md): the reporter, and anyone holding its link, still reads it by id.
 */
export function canRead(house: HouseDoc, claims: AuthClaims | undefined): boolean {
  if (house.deleted) return false;
  if (isAuthor(house, claims)) return true;
  if (house.tmpYn) return false;
  if (isAdmin(claims)) return true;
  return house.dealState === 'ONGOING' || house.dealState === 'COMPLETED';
}

/** Agents and administrators publish at once; general users wait for approval. */
export const publishesAtOnce = (claims: AuthClaims): boolean => claims.userType === 'AGENT' || isAdmin(claims);

/** One listing by id (a lean read by `_id`: through the driver's collection, without mongoose's query). */
export async function findHouse(ctx: HousesContext, houseId: number): Promise<HouseDoc | null> {
  return storedCollection(ctx.models.houses).findOne({ _id: houseId });
}

export async function readableHouse(ctx: HousesContext, houseId: number, claims: AuthClaims | undefined): Promise<HouseDoc> {
  const house = await findHouse(ctx, houseId);
  if (!house || !canRead(house, claims)) throw AppError.notFound();
  return house;
}

/**
 * The fields every decision about a listing depends on (`authorId` never changes). A write is conditional
 * on them, so parallel content edits of one listing do not conflict (the last one wins), while a
 * concurrent change of state (a report, an approval, a deletion) makes the slower writer decide again.
 */
const stateOf = (house: HouseDoc) => ({ tmpYn: house.tmpYn, dealState: house.dealState, reported: house.reported, deleted: house.deleted });

/**
 * Read-modify-write guarded by the listing's state, so a derived field (`listed`) is always computed from
 * the state it is written over. `change` sees the current document and returns the fields to set (or throws
 * an AppError); a lost race re-reads and re-decides. A listing whose state keeps changing under the request
 * is answered with C0004 (429, try again shortly), never a 500 (shared `retryOnConflict`).
 */
export async function changeHouse(
  ctx: HousesContext,
  houseId: number,
  change: (house: HouseDoc | null) => Partial<HouseDoc>,
  /** Events stored in the same write besides the listing's own (an administrator's action and its audit entry, issue 40). */
  moreEvents?: (before: HouseDoc, after: HouseDoc) => OutboxEvent[],
): Promise<HouseDoc> {
  let published = false;
  const changed = await retryOnConflict(async () => {
    const house = await findHouse(ctx, houseId);
    const fields = change(house);
    if (!house) throw AppError.notFound();
    const after = { ...house, ...fields, rev: house.rev + 1 };
    // The write's events go in the same atomic update as the change (the outbox; listing-events.ts decides which).
    const events = [...(await listingEventsOf(ctx, house, after, ctx.now())), ...(moreEvents?.(house, after) ?? [])];
    const update = { $set: fields, $inc: { rev: 1 }, ...(events.length > 0 ? { $push: { pendingEvents: { $each: events } } } : {}) };
    const result = await ctx.models.houses.updateOne({ _id: houseId, ...stateOf(house) }, update).exec();
    if (result.matchedCount !== 1) return CONFLICT;
    published = events.length > 0;
    return after;
  });
  if (published) ctx.eventsPending();
  return changed;
}

/**
 * Hides a listing after a report. Needs no read: `reported` only ever turns true and a reported listing is
 * never listed, whatever else its state is; a racing `changeHouse` sees the state change and decides again.
 * An already reported listing is left untouched.
 */
export async function hideReported(ctx: HousesContext, houseId: number): Promise<void> {
  await ctx.models.houses.updateOne({ _id: houseId, reported: false }, { $set: { reported: true, listed: false }, $inc: { rev: 1 } }).exec();
}
