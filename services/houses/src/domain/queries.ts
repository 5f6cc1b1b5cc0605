import { buildPage, escapeRegex, pageWindow, type AuthClaims, type PageRequest } from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { DealState, HouseDoc, HouseModels } from '../models';
import { cityCondition } from './regions';
import { authorsOf, toAgentItem, toListItem } from './render';

export interface PublicListQuery extends PageRequest {
  rentalType?: string;
  city?: string;
  search?: string;
  recommendedTag?: string[];
  dealState?: 'ONGOING' | 'COMPLETED';
}

/** At most this many authors whose nickname matches a search are considered (a very broad search text). */
export const MAX_NICKNAME_MATCHES = 5_000;

const NEWEST_UPDATE_FIRST = { updatedAt: -1, _id: -1 } as const;

/** The lists: public, the author's drafts and own listings, the caller's scraps, the admin's waiting list. */
export class ListingQueries {
  constructor(private readonly models: HouseModels) {}

  async publicFilter(query: Omit<PublicListQuery, 'page' | 'size'>): Promise<FilterQuery<HouseDoc>> {
    const filter: FilterQuery<HouseDoc> = { listed: true };
    if (query.rentalType) filter.rentalType = query.rentalType;
    if (query.dealState) filter.dealState = query.dealState;
    if (query.city) filter.city = cityCondition(query.city);
    if (query.recommendedTag && query.recommendedTag.length > 0) filter.recommendedTag = { $in: query.recommendedTag };
    if (query.search) {
      const pattern = new RegExp(escapeRegex(query.search), 'i');
      const authors = await this.models.users.find({ nickName: pattern }, { _id: 1 }).limit(MAX_NICKNAME_MATCHES).lean().exec();
      filter.$or = [{ title: pattern }, ...(authors.length > 0 ? [{ authorId: { $in: authors.map((a) => a._id) } }] : [])];
    }
    return filter;
  }

  async publicList(query: PublicListQuery) {
    const filter = await this.publicFilter(query);
    return this.listItemsPage(filter, NEWEST_UPDATE_FIRST, query, false);
  }

  async drafts(claims: AuthClaims, request: PageRequest) {
    return this.listItemsPage({ authorId: claims.userId, tmpYn: true, deleted: false }, NEWEST_UPDATE_FIRST, request, true);
  }

  /** Waiting listings, oldest first: the administrator works through a queue. */
  async waiting(request: PageRequest) {
    return this.listItemsPage({ dealState: 'APPLYING', tmpYn: false, deleted: false }, { updatedAt: 1, _id: 1 }, request, false);
  }

  /**
   * The caller's scraps, newest scrap first, of listings that still exist (not deleted, not reported),
   * optionally of one deal state. Scrap order lives in another collection, so ids are matched first and
   * only the page's listings are read in full.
   */
  async scraps(claims: AuthClaims, dealState: DealState | undefined, request: PageRequest) {
    const scraps = await this.models.scraps.find({ userId: claims.userId }, { houseId: 1 }).sort({ createdAt: -1, _id: -1 }).lean().exec();
    const filter: FilterQuery<HouseDoc> = { _id: { $in: scraps.map((s) => s.houseId) }, deleted: false, tmpYn: false, reported: false };
    if (dealState) filter.dealState = dealState;
    const present = new Set((await this.models.houses.find(filter, { _id: 1 }).lean().exec()).map((h) => h._id));
    const ordered = scraps.map((s) => s.houseId).filter((id) => present.has(id));
    const { skip, limit } = pageWindow(request);
    const pageIds = ordered.slice(skip, skip + limit);
    const houses = await this.models.houses
      .find({ _id: { $in: pageIds } })
      .lean<HouseDoc[]>()
      .exec();
    const byId = new Map(houses.map((h) => [h._id, h]));
    const pageHouses = pageIds.map((id) => byId.get(id)).filter((h): h is HouseDoc => h !== undefined);
    const authors = await authorsOf(this.models.users, pageHouses);
    return buildPage(
      pageHouses.map((h) => toListItem(h, authors)),
      request,
      ordered.length,
      { withPageable: true },
    );
  }

  /** The caller's own saved listings with per-state counts (the counts ignore `search` and `isCompleted`). */
  async own(claims: AuthClaims, query: PageRequest & { search?: string; isCompleted?: boolean }) {
    const mine: FilterQuery<HouseDoc> = { authorId: claims.userId, tmpYn: false, deleted: false };
    const filter: FilterQuery<HouseDoc> = { ...mine };
    if (query.search) filter.title = new RegExp(escapeRegex(query.search), 'i');
    if (query.isCompleted === true) filter.dealState = 'COMPLETED';
    if (query.isCompleted === false) filter.dealState = { $ne: 'COMPLETED' };
    const { skip, limit } = pageWindow(query);
    const [houses, total, all, applying, ongoing, completed] = await Promise.all([
      this.models.houses.find(filter).sort(NEWEST_UPDATE_FIRST).skip(skip).limit(limit).lean<HouseDoc[]>().exec(),
      this.models.houses.countDocuments(filter).exec(),
      this.models.houses.countDocuments(mine).exec(),
      this.models.houses.countDocuments({ ...mine, dealState: 'APPLYING' }).exec(),
      this.models.houses.countDocuments({ ...mine, dealState: 'ONGOING' }).exec(),
      this.models.houses.countDocuments({ ...mine, dealState: 'COMPLETED' }).exec(),
    ]);
    return { ...buildPage(houses.map(toAgentItem), query, total), count: { all, applying, ongoing, completed } };
  }

  private async listItemsPage(filter: FilterQuery<HouseDoc>, sort: Record<string, 1 | -1>, request: PageRequest, withPageable: boolean) {
    const { skip, limit } = pageWindow(request);
    const [houses, total] = await Promise.all([
      this.models.houses.find(filter).sort(sort).skip(skip).limit(limit).lean<HouseDoc[]>().exec(),
      this.models.houses.countDocuments(filter).exec(),
    ]);
    const authors = await authorsOf(this.models.users, houses);
    return buildPage(
      houses.map((h) => toListItem(h, authors)),
      request,
      total,
      { withPageable },
    );
  }
}
