import { buildPage, escapeRegex, pageWindow, type AuthClaims, type PageObject, type PageRequest, type SortOrder } from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { DealState, HouseDoc } from '../models';
import type { HousesContext } from './context';
import { authorsOf, LIST_ITEM_FIELDS, toAgentItem, toListItem, type HouseAgentItem, type HouseListItem, type ListedHouse } from './render';
import type { HouseType } from './vocabulary';
import { PublicDealStates, RegionWords, RentalTypes, type RecommendedTag } from './vocabulary';

/** The lists: public, the author's drafts and own listings, the caller's scraps, the admin's waiting list. */

/**
 * Filters that match one stored field by equality, each with the values it accepts: the query parameter
 * (routes/schemas.ts `listingFilterShape`), its type in `ListingFilterQuery` and the condition all derive from
 * this table, so a new one is one line here (plus its Korean label in `fieldLabels`).
 */
export const EQUALITY_FILTERS = { rentalType: RentalTypes, dealState: PublicDealStates } as const satisfies Partial<
  Record<keyof HouseDoc, readonly [string, ...string[]]>
>;
export type EqualityFilter = keyof typeof EQUALITY_FILTERS;
type EqualityFilters = { [K in EqualityFilter]?: (typeof EQUALITY_FILTERS)[K][number] };

/** The filters the public list and the place queries share (issue 39). */
export interface ListingFilterQuery extends EqualityFilters {
  recommendedTag?: RecommendedTag[];
  /** Price range, both ends included (the listing's `price`). */
  minPrice?: number;
  maxPrice?: number;
  /** Listings of any of these kinds (the newest web client's 토지/주택/농가 tabs). */
  houseType?: HouseType[];
}

/** Public listings (`listed`) matching the shared filters. */
export function listingFilter(query: ListingFilterQuery): FilterQuery<HouseDoc> {
  const filter: FilterQuery<HouseDoc> = { listed: true };
  for (const field of Object.keys(EQUALITY_FILTERS) as EqualityFilter[]) if (query[field]) filter[field] = query[field];
  if (query.recommendedTag && query.recommendedTag.length > 0) filter.recommendedTag = { $in: query.recommendedTag };
  if (query.houseType && query.houseType.length > 0) filter.houseType = { $in: query.houseType };
  if (query.minPrice !== undefined || query.maxPrice !== undefined) {
    filter.price = { ...(query.minPrice !== undefined ? { $gte: query.minPrice } : {}), ...(query.maxPrice !== undefined ? { $lte: query.maxPrice } : {}) };
  }
  return filter;
}

export interface PublicListQuery extends PageRequest, ListingFilterQuery {
  city?: string;
  search?: string;
}

export interface ScrapListQuery extends PageRequest {
  /** Only scraps of listings in this deal state. */
  filter?: DealState;
}

export interface OwnListQuery extends PageRequest {
  search?: string;
  /** The web client's name for `search`; wins when both are given. */
  keyword?: string;
  isCompleted?: boolean;
}

/** The author's own saved listings with per-state counts (the counts ignore `search` and `isCompleted`). */
export type OwnListPage = PageObject<HouseAgentItem> & { count: { all: number; applying: number; ongoing: number; completed: number } };

/** At most this many authors whose nickname matches a search are considered (a very broad search text). */
export const MAX_NICKNAME_MATCHES = 5_000;

export const NEWEST_UPDATE_FIRST = { updatedAt: -1, _id: -1 } as const;

async function publicFilter(ctx: HousesContext, query: Omit<PublicListQuery, 'page' | 'size'>): Promise<FilterQuery<HouseDoc>> {
  const filter = listingFilter(query);
  if (query.city) filter.city = cityCondition(query.city);
  if (query.search) {
    const pattern = new RegExp(escapeRegex(query.search), 'i');
    const authors = await ctx.models.users.find({ nickName: pattern }, { _id: 1 }).limit(MAX_NICKNAME_MATCHES).lean().exec();
    filter.$or = [{ title: pattern }, ...(authors.length > 0 ? [{ authorId: { $in: authors.map((a) => a._id) } }] : [])];
  }
  return filter;
}

export async function publicList(ctx: HousesContext, query: PublicListQuery): Promise<PageObject<HouseListItem>> {
  const filter = await publicFilter(ctx, query);
  return listItemsPage(ctx, filter, NEWEST_UPDATE_FIRST, query, false);
}

export async function draftList(ctx: HousesContext, caller: AuthClaims, request: PageRequest): Promise<PageObject<HouseListItem>> {
  return listItemsPage(ctx, { authorId: caller.userId, tmpYn: true, deleted: false }, NEWEST_UPDATE_FIRST, request, true);
}

export interface WaitingListQuery extends PageRequest {
  sort?: SortOrder<'updatedAt'>;
  rentalType?: string;
  city?: string;
  search?: string;
}

/**
 * Waiting listings, oldest first unless asked otherwise: the administrator works through a queue. The filters
 * (issue 40) narrow the walk of the queue's index ({dealState, tmpYn, deleted, updatedAt, _id}).
 */
export async function waitingList(ctx: HousesContext, query: WaitingListQuery): Promise<PageObject<HouseListItem>> {
  const { sort, rentalType, city, search, ...request } = query;
  const filter: FilterQuery<HouseDoc> = { dealState: 'APPLYING', tmpYn: false, deleted: false };
  if (rentalType) filter.rentalType = rentalType;
  if (city) filter.city = cityCondition(city);
  if (search) filter.title = new RegExp(escapeRegex(search), 'i');
  const direction = sort?.direction ?? 1;
  return listItemsPage(ctx, filter, { updatedAt: direction, _id: direction }, request, false);
}

/**
 * The caller's scraps, newest scrap first, of listings that still exist (not deleted, not reported),
 * optionally of one deal state. Scrap order lives in another collection, so the scrapped listings that still
 * count are read (list fields only) in one query and ordered and paged here.
 */
export async function scrapList(ctx: HousesContext, caller: AuthClaims, query: ScrapListQuery): Promise<PageObject<HouseListItem>> {
  const { models } = ctx;
  const scraps = await models.scraps.find({ userId: caller.userId }, { houseId: 1 }).sort({ createdAt: -1, _id: -1 }).lean().exec();
  const filter: FilterQuery<HouseDoc> = { _id: { $in: scraps.map((s) => s.houseId) }, deleted: false, tmpYn: false, reported: false };
  if (query.filter) filter.dealState = query.filter;
  const present = new Map((await models.houses.find(filter, LIST_ITEM_FIELDS).lean<ListedHouse[]>().exec()).map((h) => [h._id, h]));
  const ordered = scraps.map((s) => s.houseId).filter((id) => present.has(id));
  const { skip, limit } = pageWindow(query);
  const pageHouses = ordered.slice(skip, skip + limit).flatMap((id) => present.get(id) ?? []);
  const authors = await authorsOf(models.users, pageHouses);
  return buildPage(
    pageHouses.map((h) => toListItem(h, authors)),
    query,
    ordered.length,
    { withPageable: true },
  );
}

/** The caller's own saved listings with per-state counts (the counts ignore `search` and `isCompleted`). */
export async function ownList(ctx: HousesContext, caller: AuthClaims, query: OwnListQuery): Promise<OwnListPage> {
  const { houses: model } = ctx.models;
  const mine: FilterQuery<HouseDoc> = { authorId: caller.userId, tmpYn: false, deleted: false };
  const filter: FilterQuery<HouseDoc> = { ...mine };
  const text = query.keyword ?? query.search;
  if (text) filter.title = new RegExp(escapeRegex(text), 'i');
  if (query.isCompleted === true) filter.dealState = 'COMPLETED';
  if (query.isCompleted === false) filter.dealState = { $ne: 'COMPLETED' };
  const { skip, limit } = pageWindow(query);
  const [houses, total, all, applying, ongoing, completed] = await Promise.all([
    model.find(filter).sort(NEWEST_UPDATE_FIRST).skip(skip).limit(limit).lean<HouseDoc[]>().exec(),
    model.countDocuments(filter).exec(),
    model.countDocuments(mine).exec(),
    model.countDocuments({ ...mine, dealState: 'APPLYING' }).exec(),
    model.countDocuments({ ...mine, dealState: 'ONGOING' }).exec(),
    model.countDocuments({ ...mine, dealState: 'COMPLETED' }).exec(),
  ]);
  return { ...buildPage(houses.map(toAgentItem), query, total), count: { all, applying, ongoing, completed } };
}

async function listItemsPage(
  ctx: HousesContext,
  filter: FilterQuery<HouseDoc>,
  sort: Record<string, 1 | -1>,
  request: PageRequest,
  withPageable: boolean,
): Promise<PageObject<HouseListItem>> {
  const { skip, limit } = pageWindow(request);
  const [houses, total] = await Promise.all([
    ctx.models.houses.find(filter, LIST_ITEM_FIELDS).sort(sort).skip(skip).limit(limit).lean<ListedHouse[]>().exec(),
    ctx.models.houses.countDocuments(filter).exec(),
  ]);
  const authors = await authorsOf(ctx.models.users, houses);
  return buildPage(
    houses.map((h) => toListItem(h, authors)),
    request,
    total,
    { withPageable },
  );
}

/** The `city` condition: a region word matches listings whose city starts with one of its names; other text is a substring. */
export function cityCondition(city: string): RegExp | { $in: RegExp[] } {
  // hasOwn: a query such as `city=constructor` must not reach Object.prototype.
  const region = Object.hasOwn(RegionWords, city) ? RegionWords[city] : undefined;
  if (region) return { $in: region.map((name) => new RegExp(`^${escapeRegex(name)}`)) };
  return new RegExp(escapeRegex(city), 'i');
}
