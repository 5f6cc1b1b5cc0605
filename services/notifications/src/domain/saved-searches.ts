import { AppError, nextId, type AuthClaims } from '@binzip/shared';
import type { SavedSearchDoc, SearchConditions } from '../models';
import type { NotificationsContext } from './context';
import { searchKeys } from './matching';

/** Searches one member may keep (issue 38). */
export const MAX_SAVED_SEARCHES = 20;

export const ConditionFields = [
  'province',
  'county',
  'rentalType',
  'dealState',
  'houseType',
  'recommendedTag',
  'minPrice',
  'maxPrice',
  'south',
  'west',
  'north',
  'east',
  'latitude',
  'longitude',
  'radiusKm',
] as const satisfies ReadonlyArray<keyof SearchConditions>;

/** A saved search as the member sends it (POST and PUT: the whole search). Validated by routes/schemas.ts. */
export interface SavedSearchInput extends SearchConditions {
  name: string;
  alert: boolean;
}

/** The wire shape: the saved fields (those given) plus `id`. */
export type SavedSearchItem = { id: number; name: string; alert: boolean } & { [K in keyof SearchConditions]?: SearchConditions[K] };

function conditionsOf(input: SearchConditions): Required<{ [K in keyof SearchConditions]: SearchConditions[K] | null }> {
  return Object.fromEntries(ConditionFields.map((field) => [field, input[field] ?? null])) as Required<{
    [K in keyof SearchConditions]: SearchConditions[K] | null;
  }>;
}

export function renderSavedSearch(doc: SavedSearchDoc): SavedSearchItem {
  const item: SavedSearchItem = { id: doc._id, name: doc.name, alert: doc.alert };
  for (const field of ConditionFields) {
    const value = doc[field];
    if (value !== null && value !== undefined) (item as Record<string, unknown>)[field] = value;
  }
  return item;
}

/**
 * Saves a search. The ceiling of 20 holds under concurrent saves: the search is written, then the member's
 * searches up to and including it are counted; one past the ceiling is removed again and refused, so only the
 * later of two racing saves loses and nothing past the 20th stays stored.
 */
export async function createSavedSearch(ctx: NotificationsContext, caller: AuthClaims, input: SavedSearchInput): Promise<number> {
  const model = ctx.models.savedSearches;
  const refuse = () => AppError.invalid(`관심 조건은 ${MAX_SAVED_SEARCHES}개까지 저장할 수 있습니다.`);
  // Checked first so a member at the ceiling does not burn ids.
  if ((await model.countDocuments({ userId: caller.userId }).exec()) >= MAX_SAVED_SEARCHES) throw refuse();
  const id = await nextId(model.db, 'savedSearch');
  const now = ctx.now();
  await model.create({
    _id: id,
    userId: caller.userId,
    name: input.name,
    ...conditionsOf(input),
    alert: input.alert,
    matchKeys: searchKeys(input, input.alert),
    createdAt: now,
    updatedAt: now,
  });
  if ((await model.countDocuments({ userId: caller.userId, _id: { $lte: id } }).exec()) > MAX_SAVED_SEARCHES) {
    await model.deleteOne({ _id: id }).exec();
    throw refuse();
  }
  return id;
}

export async function listSavedSearches(ctx: NotificationsContext, caller: AuthClaims): Promise<SavedSearchItem[]> {
  const docs = await ctx.models.savedSearches.find({ userId: caller.userId }).sort({ _id: 1 }).lean<SavedSearchDoc[]>().exec();
  return docs.map(renderSavedSearch);
}

/** Unknown id: 404 C0001; another member's search: 403 C0003 (as marking another member's notice read). */
async function ownSearch(ctx: NotificationsContext, caller: AuthClaims, savedSearchId: number): Promise<void> {
  const doc = await ctx.models.savedSearches.findById(savedSearchId, { userId: 1 }).lean<Pick<SavedSearchDoc, '_id' | 'userId'>>().exec();
  if (!doc) throw new AppError('C0001');
  if (doc.userId !== caller.userId) throw new AppError('C0003');
}

/** Replaces a search's name, conditions and alert (PUT: the whole search, as POST). */
export async function updateSavedSearch(
  ctx: NotificationsContext,
  caller: AuthClaims,
  input: { savedSearchId: number; search: SavedSearchInput },
): Promise<number> {
  const { savedSearchId, search } = input;
  await ownSearch(ctx, caller, savedSearchId);
  const result = await ctx.models.savedSearches
    .updateOne(
      { _id: savedSearchId, userId: caller.userId },
      { $set: { name: search.name, ...conditionsOf(search), alert: search.alert, matchKeys: searchKeys(search, search.alert), updatedAt: ctx.now() } },
    )
    .exec();
  // Deleted between the check and the write.
  if (result.matchedCount === 0) throw new AppError('C0001');
  return savedSearchId;
}

export async function deleteSavedSearch(ctx: NotificationsContext, caller: AuthClaims, input: { savedSearchId: number }): Promise<number> {
  await ownSearch(ctx, caller, input.savedSearchId);
  await ctx.models.savedSearches.deleteOne({ _id: input.savedSearchId, userId: caller.userId }).exec();
  return input.savedSearchId;
}
