import { AppError, isAdmin, type AuthClaims } from '@binzip/shared';
import type { HouseDoc, HouseModels } from '../models';

export const isAuthor = (house: HouseDoc, claims: AuthClaims | undefined): boolean => claims !== undefined && house.authorId === claims.userId;

/**
 * Who may read a listing by id: its author always (drafts included); nobody else a draft or a deleted
 * listing; an administrator any saved listing; everyone else only approved, unreported ones.
 */
export function canRead(house: HouseDoc, claims: AuthClaims | undefined): boolean {
  if (house.deleted) return false;
  if (isAuthor(house, claims)) return true;
  if (house.tmpYn) return false;
  if (isAdmin(claims)) return true;
  return house.listed;
}

/** Agents and administrators publish at once; general users wait for approval. */
export const publishesAtOnce = (claims: AuthClaims): boolean => claims.userType === 'AGENT' || isAdmin(claims);

export async function findHouse(models: HouseModels, houseId: number): Promise<HouseDoc | null> {
  return models.houses.findById(houseId).lean<HouseDoc>().exec();
}

export async function readableHouse(models: HouseModels, houseId: number, claims: AuthClaims | undefined): Promise<HouseDoc> {
  const house = await findHouse(models, houseId);
  if (!house || !canRead(house, claims)) throw AppError.notFound();
  return house;
}

const MAX_ATTEMPTS = 5;

/**
 * Read-modify-write guarded by the document's revision, so a derived field (`listed`) is always computed
 * from the state it is written over. `change` sees the current document and returns the fields to set
 * (or throws an AppError); a lost race re-reads and re-decides.
 */
export async function changeHouse(models: HouseModels, houseId: number, change: (house: HouseDoc | null) => Partial<HouseDoc>): Promise<HouseDoc> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const house = await findHouse(models, houseId);
    const fields = change(house);
    if (!house) throw AppError.notFound();
    const result = await models.houses.updateOne({ _id: houseId, rev: house.rev }, { $set: fields, $inc: { rev: 1 } }).exec();
    if (result.matchedCount === 1) return { ...house, ...fields, rev: house.rev + 1 };
  }
  throw new Error(`house ${houseId}: too many concurrent changes`);
}
