import { defineService, serviceApp, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import { createPictures, defaultMediaSettings, startPictureSweeper, type MediaSettings } from '@binzip/shared/media';
import type { Express } from 'express';
import { HOUSE_ANSWERS } from './cache-keys';
import { geocoderOf, readConfig } from './config';
import { backfillPlaces, startGeocoding } from './domain/geocoding';
import { sanitizeStoredListings } from './domain/listings';
import { referencedPictures } from './domain/pictures';
import { housesOutbox } from './events';
import { housesModels, initModels, type HousesModels } from './models';
import { apiDocument, operations, PICTURES_PATH, type HousesOperationContext } from './routes';
import { fieldLabels } from './routes/schemas';

export interface AppDeps extends ServiceAppDeps {
  /** The pictures settings (`MEDIA_*`); every default when absent (GridFS in the service's database). */
  media?: MediaSettings;
  /** Kicks the geocoding job after a listing write (the start-up task sets it); absent, nothing is kicked (tests run it themselves). */
  geocodingPending?: () => void;
}

/**
 * The houses service, declared once: `runService(service)` (main.ts) and the test kit build it from here.
 * Stateless: everything lives in MongoDB, so operators run as many instances as they like. Author nicknames and
 * types come from the shared projection of accounts' users (one durable consumer for all instances, so each
 * snapshot is applied once).
 */
export const service = defineService({
  name: 'houses',
  readConfig,
  userProjection: true,
  namesShownBy: HOUSE_ANSWERS,
  models: housesModels,
  initModels,
  deps: (config) => ({ media: config }),
  context: (models: HousesModels, deps: AppDeps): HousesOperationContext => ({
    ...serviceContext(models, deps),
    pictures: createPictures({
      connection: deps.connection,
      settings: deps.media ?? defaultMediaSettings(),
      service: 'houses',
      mountPath: PICTURES_PATH,
      logger: deps.logger,
      now: deps.now ?? (() => new Date()),
    }),
    geocodingPending: deps.geocodingPending,
  }),
  operations,
  apiDocument,
  fieldLabels,
  outbox: housesOutbox,
  // Writes of other instances, and nickname changes, arrive as `cache.houses.changed`.
  cache: { events: [] },
  startup: async (ctx, { config, connection, logger }, deps) => {
    await sanitizeStoredListings(ctx);
    await backfillPlaces(ctx);
    // Listings' points from their addresses, in the background (every instance runs it; a listing is claimed first).
    const geocoder = geocoderOf(config);
    // A stored point changes the places' answers (and the lists' items): every instance forgets its answers, at once
    // for the first point and then at most once per `POINTS_FORGOTTEN_EVERY_MS` (a burst of new listings being
    // located would otherwise empty every cache once per listing).
    const forgetPoints = atMostEvery(POINTS_FORGOTTEN_EVERY_MS, () => deps.responseCache?.changed(undefined));
    const geocoding = geocoder ? startGeocoding(ctx, geocoder, config.GEOCODER_INTERVAL_MS, forgetPoints.call) : undefined;
    if (geocoder) logger.info('geocoder', { geocoder: geocoder.name });
    // The process's one context is built before its tasks: a listing write kicks the job it now has.
    if (geocoding) (ctx as { geocodingPending?: () => void }).geocodingPending = geocoding.kick;
    const stopSweeper = startPictureSweeper({
      connection,
      settings: config,
      service: 'houses',
      logger,
      now: ctx.now,
      referenced: (deletedSince) => referencedPictures(ctx, deletedSince),
    });
    return { closers: [stopSweeper, ...(geocoding ? [geocoding.stop] : []), async () => forgetPoints.stop()] };
  },
});

/** How late a point the geocoding job stored may show in answers kept before it: a second at most. */
export const POINTS_FORGOTTEN_EVERY_MS = 1_000;

/** Runs `fn` at once, then at most once per `ms`: calls in between run it once at the end of the interval. */
export function atMostEvery(ms: number, fn: () => void): { call: () => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let pending = false;
  const open = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (pending) {
        pending = false;
        fn();
        open();
      }
    }, ms);
    timer.unref();
  };
  return {
    call: () => {
      if (timer) {
        pending = true;
        return;
      }
      fn();
      open();
    },
    stop: () => {
      clearTimeout(timer);
      timer = undefined;
      if (pending) fn();
      pending = false;
    },
  };
}

/** The app from deps (tests). */
export const buildApp = (deps: AppDeps): Express => serviceApp(service, deps);
