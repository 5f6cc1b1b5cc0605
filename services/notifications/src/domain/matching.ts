import type { SearchConditions } from '../models';
import { provincesOf } from './vocabulary';

/**
 * Matching published listings against saved searches (issue 38) without comparing each listing with every
 * search. A search is indexed under the keys a listing must carry to concern it at all: its province (each
 * current province name its `province` stands for, or `*` when it names none) crossed with its rental type (or
 * `*`). A listing asks for exactly four keys (its province and rental type, each or `*`); only the searches under
 * them are compared in full (`matches`). The store serves the look-up from the multikey `matchKeys` index;
 * `scripts/bench-alerts.ts` counts the comparisons at 100,000 searches.
 */

/** What `houses.listing.published` tells about a listing, as matching needs it. */
export interface PublishedListing {
  houseId: number;
  authorId: number;
  rentalType: string;
  dealState: string;
  houseType: string | null;
  recommendedTag: readonly string[];
  price: number;
  province: string | null;
  county: string | null;
  latitude: number | null;
  longitude: number | null;
}

const ANY = '*';
const key = (province: string, rentalType: string) => `${province}|${rentalType}`;

/** The keys a search is found under; none when its alert is off. */
export function searchKeys(conditions: SearchConditions, alert: boolean): string[] {
  if (!alert) return [];
  const provinces = conditions.province ? (provincesOf(conditions.province) ?? []) : [ANY];
  const rentalType = conditions.rentalType ?? ANY;
  return provinces.map((province) => key(province, rentalType));
}

/** The four keys a listing asks for: every search that can match it is under one of them. */
export function listingKeys(listing: Pick<PublishedListing, 'province' | 'rentalType'>): string[] {
  const keys = [key(ANY, listing.rentalType), key(ANY, ANY)];
  if (listing.province) keys.unshift(key(listing.province, listing.rentalType), key(listing.province, ANY));
  return keys;
}

const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Great-circle distance in km (haversine), as houses' near query measures it. */
export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/**
 * The full comparison, as the house list filters (decisions.md): each condition given must hold. A box or a
 * circle needs the listing's point; a listing whose point is not known yet matches no search that has one.
 */
export function matches(search: SearchConditions, listing: PublishedListing): boolean {
  if (given(search.province) && !(listing.province && provincesOf(search.province)?.includes(listing.province))) return false;
  if (given(search.county) && search.county !== listing.county) return false;
  if (given(search.rentalType) && search.rentalType !== listing.rentalType) return false;
  if (given(search.dealState) && search.dealState !== listing.dealState) return false;
  if (given(search.houseType) && search.houseType !== listing.houseType) return false;
  if (given(search.recommendedTag) && !listing.recommendedTag.includes(search.recommendedTag)) return false;
  if (given(search.minPrice) && listing.price < search.minPrice) return false;
  if (given(search.maxPrice) && listing.price > search.maxPrice) return false;
  const hasBox = given(search.south) && given(search.west) && given(search.north) && given(search.east);
  const hasCircle = given(search.latitude) && given(search.longitude) && given(search.radiusKm);
  if (hasBox || hasCircle) {
    if (listing.latitude === null || listing.longitude === null) return false;
    const point = { latitude: listing.latitude, longitude: listing.longitude };
    if (hasBox && !(point.latitude >= search.south! && point.latitude <= search.north! && point.longitude >= search.west! && point.longitude <= search.east!))
      return false;
    if (hasCircle && distanceKm({ latitude: search.latitude!, longitude: search.longitude! }, point) > search.radiusKm!) return false;
  }
  return true;
}

/**
 * An in-memory index of the same keys (the benchmark's, and a reference for what the store's index returns):
 * `candidates` are the searches a listing is compared with.
 */
export class SearchIndex<S extends SearchConditions & { alert: boolean }> {
  private readonly buckets = new Map<string, S[]>();

  add(search: S): void {
    for (const k of searchKeys(search, search.alert)) {
      const bucket = this.buckets.get(k);
      if (bucket) bucket.push(search);
      else this.buckets.set(k, [search]);
    }
  }

  candidates(listing: Pick<PublishedListing, 'province' | 'rentalType'>): S[] {
    return listingKeys(listing).flatMap((k) => this.buckets.get(k) ?? []);
  }
}
