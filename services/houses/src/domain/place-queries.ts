import { buildPage, pageWindow, type PageObject, type PageRequest } from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { HouseDoc } from '../models';
import { readableHouse } from './access';
import type { HousesContext } from './context';
import { boxAround, cellCount, clampToKorea, coverBox, distanceKm, MAX_GRID_LEVEL, MIN_GRID_LEVEL, roundKm, type Box, type GeoPoint } from './places';
import { listingFilter, NEWEST_UPDATE_FIRST, type ListingFilterQuery } from './queries';
import { ProvinceNames } from './vocabulary';
import { authorsOf, LIST_ITEM_FIELDS, toListItem, type Authors, type HouseListItem, type ListedHouse } from './render';

/** Listings by place (issue 39): in a box, near a point, in clusters, counted by region, near a listing. */

export interface HouseMapItem extends HouseListItem {
  latitude: number;
  longitude: number;
}

export interface HouseNearItem extends HouseMapItem {
  /** Great-circle distance from the point asked about, in km (to the metre). */
  distanceKm: number;
}

export interface HouseCluster {
  /** The mean point of the cell's listings. */
  latitude: number;
  longitude: number;
  count: number;
}

export interface RegionCount {
  province: string;
  count: number;
  counties: Array<{ county: string; count: number }>;
}

const MAP_ITEM_FIELDS = { ...LIST_ITEM_FIELDS, latitude: 1, longitude: 1 } as const;
type LocatedHouse = ListedHouse & { latitude: number; longitude: number };

const toMapItem = (house: LocatedHouse, authors: Authors): HouseMapItem => ({
  ...toListItem(house, authors),
  latitude: house.latitude,
  longitude: house.longitude,
});

/** Public listings matching the filters inside `area`: the grid cells bound the index walk, the exact box the rest. */
function inArea(query: ListingFilterQuery, area: Box, finest = MAX_GRID_LEVEL): FilterQuery<HouseDoc> {
  // The exact box first: a store that scans (the local one) then rejects most listings on one number.
  return {
    latitude: { $gte: area.south, $lte: area.north },
    longitude: { $gte: area.west, $lte: area.east },
    ...listingFilter(query),
    geoCells: { $in: coverBox(area, finest).cells },
  };
}

export type BoxQuery = Box & ListingFilterQuery & PageRequest;

/** The public listings inside a box, newest update first, each with its point. */
export async function housesInBox(ctx: HousesContext, query: BoxQuery): Promise<PageObject<HouseMapItem>> {
  const area = clampToKorea(query);
  if (!area) return buildPage([], query, 0);
  const filter = inArea(query, area);
  const { skip, limit } = pageWindow(query);
  const [houses, total] = await Promise.all([
    ctx.models.houses.find(filter, MAP_ITEM_FIELDS).sort(NEWEST_UPDATE_FIRST).skip(skip).limit(limit).lean<LocatedHouse[]>().exec(),
    ctx.models.houses.countDocuments(filter).exec(),
  ]);
  const authors = await authorsOf(ctx.models.users, houses);
  return buildPage(
    houses.map((h) => toMapItem(h, authors)),
    query,
    total,
  );
}

interface Candidate {
  _id: number;
  rentalType: string;
  distanceKm: number;
}

/** The public listings within `radiusKm` of a point (matching `filter`), nearest first (id breaks ties). */
async function candidatesNear(ctx: HousesContext, center: GeoPoint, radiusKm: number, filter: FilterQuery<HouseDoc>): Promise<Candidate[]> {
  const area = clampToKorea(boxAround(center, radiusKm));
  if (!area) return [];
  const { cells } = coverBox(area);
  const found = await ctx.models.houses
    .find(
      { latitude: { $gte: area.south, $lte: area.north }, longitude: { $gte: area.west, $lte: area.east }, ...filter, geoCells: { $in: cells } },
      { latitude: 1, longitude: 1, rentalType: 1 },
    )
    .lean<Array<Pick<HouseDoc, '_id' | 'rentalType'> & GeoPoint>>()
    .exec();
  return found
    .map((h) => ({ _id: h._id, rentalType: h.rentalType, distanceKm: distanceKm(center, h) }))
    .filter((c) => c.distanceKm <= radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm || a._id - b._id);
}

/** The listings of `chosen`, rendered in its order with their distances. */
async function nearItems(ctx: HousesContext, chosen: Candidate[]): Promise<HouseNearItem[]> {
  if (chosen.length === 0) return [];
  const houses = await ctx.models.houses
    .find({ _id: { $in: chosen.map((c) => c._id) } }, MAP_ITEM_FIELDS)
    .lean<LocatedHouse[]>()
    .exec();
  const byId = new Map(houses.map((h) => [h._id, h]));
  const authors = await authorsOf(ctx.models.users, houses);
  return chosen.flatMap((c) => {
    const house = byId.get(c._id);
    return house ? [{ ...toMapItem(house, authors), distanceKm: roundKm(c.distanceKm) }] : [];
  });
}

export type NearQuery = GeoPoint & { radiusKm: number } & ListingFilterQuery & PageRequest;

/**
 * The public listings within a radius, nearest first. The circle's box bounds the index walk; the candidates'
 * points alone are read, measured and ordered here, then only the page's listings are read in full.
 */
export async function housesNear(ctx: HousesContext, query: NearQuery): Promise<PageObject<HouseNearItem>> {
  const candidates = await candidatesNear(ctx, query, query.radiusKm, listingFilter(query));
  const { skip, limit } = pageWindow(query);
  return buildPage(await nearItems(ctx, candidates.slice(skip, skip + limit)), query, candidates.length);
}

/** Most cells a cluster answer may have: a finer zoom over a wide box is answered at a coarser level. */
export const MAX_CLUSTER_CELLS = 4_096;

export type ClusterQuery = Box & { zoom: number } & ListingFilterQuery;

/**
 * Public listings counted per grid cell of the zoom's level (clamped to the stored levels, and coarser when the
 * box would hold more than `MAX_CLUSTER_CELLS` cells): one aggregation, the index bounds it by a coarser cover.
 */
export async function houseClusters(ctx: HousesContext, query: ClusterQuery): Promise<HouseCluster[]> {
  const area = clampToKorea(query);
  if (!area) return [];
  let level = Math.max(MIN_GRID_LEVEL, Math.min(MAX_GRID_LEVEL, query.zoom));
  while (level > MIN_GRID_LEVEL && cellCount(level, area) > MAX_CLUSTER_CELLS) level -= 1;
  const groups = await ctx.models.houses
    .aggregate<{ _id: string; count: number; latitude: number; longitude: number }>([
      { $match: inArea(query, area, level) },
      { $project: { _id: 0, geoCells: 1, latitude: 1, longitude: 1 } },
      { $unwind: '$geoCells' },
      { $match: { geoCells: { $regex: `^${level}:` } } },
      { $group: { _id: '$geoCells', count: { $sum: 1 }, latitude: { $avg: '$latitude' }, longitude: { $avg: '$longitude' } } },
    ])
    .exec();
  const round = (n: number): number => Math.round(n * 1e6) / 1e6;
  return groups
    .map((g) => ({ latitude: round(g.latitude), longitude: round(g.longitude), count: g.count }))
    .sort((a, b) => b.latitude - a.latitude || a.longitude - b.longitude);
}

/**
 * Public listings per province and county: one aggregation over the {listed, province, county} index, kept by
 * the response cache until a listing write (routes/houses.ts), so it runs once per write, not per request.
 */
export async function regionCounts(ctx: HousesContext): Promise<RegionCount[]> {
  const groups = await ctx.models.houses
    .aggregate<{ _id: { province: string | null; county: string | null }; count: number }>([
      { $match: { listed: true } },
      { $group: { _id: { province: '$province', county: '$county' }, count: { $sum: 1 } } },
    ])
    .exec();
  const provinces = new Map<string, RegionCount>();
  for (const { _id, count } of groups) {
    if (!_id.province) continue;
    const entry = provinces.get(_id.province) ?? { province: _id.province, count: 0, counties: [] };
    entry.count += count;
    if (_id.county) entry.counties.push({ county: _id.county, count });
    provinces.set(_id.province, entry);
  }
  const order = (name: string): number => {
    const index = (ProvinceNames as readonly string[]).indexOf(name);
    return index === -1 ? ProvinceNames.length : index;
  };
  return [...provinces.values()]
    .sort((a, b) => order(a.province) - order(b.province) || a.province.localeCompare(b.province))
    .map((p) => ({ ...p, counties: p.counties.sort((a, b) => b.count - a.count || a.county.localeCompare(b.county)) }));
}

/** How far the search for similar listings reaches, ring by ring. */
const NEARBY_RADII_KM = [5, 20, 50, 200];
export const NEARBY_COUNT = 4;

/**
 * Up to four public listings closest to a listing: of its rental type when the nearest rings hold four of them,
 * otherwise the closest of any type. A listing without a point has none.
 */
export async function nearbyHouses(ctx: HousesContext, input: { houseId: number }): Promise<HouseNearItem[]> {
  const house = await readableHouse(ctx, input.houseId, undefined);
  if (house.latitude === null || house.latitude === undefined || house.longitude === null || house.longitude === undefined) return [];
  const center = { latitude: house.latitude, longitude: house.longitude };
  let candidates: Candidate[] = [];
  for (const radius of NEARBY_RADII_KM) {
    candidates = (await candidatesNear(ctx, center, radius, { listed: true })).filter((c) => c._id !== house._id);
    const same = candidates.filter((c) => c.rentalType === house.rentalType);
    if (same.length >= NEARBY_COUNT) return nearItems(ctx, same.slice(0, NEARBY_COUNT));
  }
  return nearItems(ctx, candidates.slice(0, NEARBY_COUNT));
}
