import type { HouseDoc } from '../models';
import type { HousesContext } from './context';
import type { Geocoder } from './geocoder';
import type { ListingInput } from './listing-input';
import { gridCells, implausiblePoint, regionOf, type GeoPoint } from './places';

/**
 * A listing's point (issue 39): given by the client, or found from the address by a geocoder in the background.
 * A write never waits for the geocoder: it stores the address the point belongs to and `geocodeDueAt`, and the
 * job (`startGeocoding`) asks the geocoder later, again after a back-off while it fails.
 */

/** The place fields a write sets. */
export type PlaceFields = Pick<
  HouseDoc,
  'latitude' | 'longitude' | 'pointSource' | 'geoCells' | 'geoAddress' | 'geocodeDueAt' | 'geocodeAttempts' | 'geocodeError' | 'province' | 'county'
>;

/** What the geocoder is asked: the address as written, blanks collapsed. */
export const addressOf = (content: { city: string; detail: string }): string => `${content.city} ${content.detail}`.trim().replace(/\s+/g, ' ');

export const pointFields = (point: GeoPoint) => ({ latitude: point.latitude, longitude: point.longitude, geoCells: gridCells(point) });

/**
 * The place fields of a write over `previous` (null for a new listing): the client's point when given; else the
 * stored point (or the geocoding waiting for it) while the address is unchanged; else none, and a saved listing
 * with an address waits for the geocoder now (a draft's address is geocoded once it is saved).
 */
export function placeOnWrite(previous: HouseDoc | null, input: ListingInput, now: Date): Partial<PlaceFields> {
  const address = addressOf(input.content);
  const region = regionOf(input.content.city);
  if (input.point) {
    return { ...pointFields(input.point), pointSource: 'CLIENT', geoAddress: address, geocodeDueAt: null, geocodeAttempts: 0, geocodeError: null, ...region };
  }
  const located = previous?.latitude !== null && previous?.latitude !== undefined;
  const waiting = previous?.geocodeDueAt !== null && previous?.geocodeDueAt !== undefined;
  if (previous && previous.geoAddress === address && (located || waiting || input.tmpYn)) return region;
  const wait = !input.tmpYn && address !== '';
  return {
    latitude: null,
    longitude: null,
    pointSource: null,
    geoCells: [],
    geoAddress: address,
    geocodeDueAt: wait ? now : null,
    geocodeAttempts: 0,
    geocodeError: null,
    ...region,
  };
}

/** Waits before the next attempt after n failures: 1 min, 5 min, 15 min, 1 h, 6 h, then daily. */
export const GEOCODE_BACKOFF_MS = [60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000];
/** A claimed listing is not claimed again for this long (an instance that dies while asking). */
export const GEOCODE_LEASE_MS = 120_000;

type DueHouse = Pick<HouseDoc, '_id' | 'geoAddress' | 'geocodeDueAt' | 'geocodeAttempts' | 'city'>;

/**
 * Asks the geocoder for every listing whose point is due (at most `batch`), one at a time: each is claimed first
 * (so parallel instances do not ask twice), and its answer is stored only if the address is still the one asked
 * about and no client point arrived meanwhile. Returns how many were asked about.
 */
export async function geocodeDue(ctx: HousesContext, geocoder: Geocoder, batch = 50, located: () => void = () => undefined): Promise<number> {
  const { houses } = ctx.models;
  const now = ctx.now();
  const due = await houses
    .find({ geocodeDueAt: { $lte: now } }, { geoAddress: 1, geocodeDueAt: 1, geocodeAttempts: 1, city: 1 })
    .sort({ geocodeDueAt: 1 })
    .limit(batch)
    .lean<DueHouse[]>()
    .exec();
  let asked = 0;
  for (const house of due) {
    const address = house.geoAddress ?? '';
    const claimed = await houses
      .updateOne(
        { _id: house._id, geoAddress: address, geocodeDueAt: house.geocodeDueAt },
        { $set: { geocodeDueAt: new Date(now.getTime() + GEOCODE_LEASE_MS) } },
      )
      .exec();
    if (claimed.modifiedCount !== 1) continue;
    asked += 1;
    const result = await geocoder.geocode(address).catch((err: unknown) => ({ kind: 'failed' as const, reason: `geocoder threw: ${(err as Error).message}` }));
    const reason =
      result.kind === 'found' ? implausiblePoint(result.point, house.city) : result.kind === 'not-found' ? `${geocoder.name}: no such address` : result.reason;
    const unchanged = { _id: house._id, geoAddress: address, latitude: null };
    if (result.kind === 'found' && reason === undefined) {
      const stored = await houses
        .updateOne(unchanged, { $set: { ...pointFields(result.point), pointSource: 'GEOCODER', geocodeDueAt: null, geocodeAttempts: 0, geocodeError: null } })
        .exec();
      // The listing's point shows in the places' answers: they are forgotten (and the other instances told).
      if (stored.modifiedCount > 0) located();
      ctx.logger.info('listing located', { houseId: house._id, geocoder: geocoder.name });
      continue;
    }
    const attempts = (house.geocodeAttempts ?? 0) + 1;
    const retryAt = new Date(ctx.now().getTime() + GEOCODE_BACKOFF_MS[Math.min(attempts, GEOCODE_BACKOFF_MS.length) - 1]);
    await houses.updateOne(unchanged, { $set: { geocodeDueAt: retryAt, geocodeAttempts: attempts, geocodeError: reason ?? 'unknown' } }).exec();
    ctx.logger.warn('listing not located; retrying later', { houseId: house._id, geocoder: geocoder.name, reason, attempts, retryAt: retryAt.toISOString() });
  }
  return asked;
}

export interface GeocodingJob {
  /** Look for due listings soon (after a write). */
  readonly kick: () => void;
  /** Stops the timer and waits for a run in progress. */
  readonly stop: () => Promise<void>;
}

/**
 * Runs `geocodeDue` every `intervalMs` and soon after each kick, one run at a time; a failing run is logged and
 * the next one tries again (the listings stay due). `located` is called after each point stored (the service
 * forgets its cached answers there).
 */
export function startGeocoding(ctx: HousesContext, geocoder: Geocoder, intervalMs: number, located: () => void = () => undefined): GeocodingJob {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        // A full batch means more may be due: go on at once.
        while (!stopped && (await geocodeDue(ctx, geocoder, 50, located)) === 50);
      } catch (err) {
        ctx.logger.warn('geocoding run failed; the listings stay due', { error: (err as Error).message });
      } finally {
        running = undefined;
        if (again) {
          again = false;
          setImmediate(run);
        }
      }
    })();
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  let kickTimer: NodeJS.Timeout | undefined;
  return {
    kick: () => {
      if (stopped || kickTimer) return;
      kickTimer = setTimeout(() => {
        kickTimer = undefined;
        run();
      }, 50);
      kickTimer.unref();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      if (kickTimer) clearTimeout(kickTimer);
      await running;
    },
  };
}

/**
 * Listings stored before issue 39 have no place fields: each gets its province and county, and a saved one with
 * an address waits for the geocoder. Once, at start-up (a listing written since has the fields).
 */
export async function backfillPlaces(ctx: HousesContext): Promise<number> {
  const { houses } = ctx.models;
  const now = ctx.now();
  const old = await houses
    .find({ geoAddress: { $exists: false } }, { city: 1, detail: 1, tmpYn: 1 })
    .lean<Array<Pick<HouseDoc, '_id' | 'city' | 'detail' | 'tmpYn'>>>()
    .exec();
  for (const house of old) {
    const address = addressOf(house);
    const fields: Partial<PlaceFields> = {
      ...regionOf(house.city),
      latitude: null,
      longitude: null,
      pointSource: null,
      geoCells: [],
      geoAddress: address,
      geocodeDueAt: !house.tmpYn && address !== '' ? now : null,
      geocodeAttempts: 0,
      geocodeError: null,
    };
    await houses.updateOne({ _id: house._id, geoAddress: { $exists: false } }, { $set: fields }).exec();
  }
  if (old.length > 0) ctx.logger.info('place fields added to older listings', { count: old.length });
  return old.length;
}
