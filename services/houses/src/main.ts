import { ResponseCache, runService, serviceContext } from '@binzip/shared';
import { startPictureSweeper } from '@binzip/shared/media';
import { buildApp } from './app';
import { geocoderOf, readConfig } from './config';
import { backfillPlaces, startGeocoding } from './domain/geocoding';
import { sanitizeStoredListings } from './domain/listings';
import { referencedPictures } from './domain/pictures';
import { housesOutbox } from './events';
import { housesModels, initModels } from './models';

// Author nicknames and types come from the shared projection of accounts' users (one durable consumer for all
// instances, so each snapshot is applied once).
runService({
  name: 'houses',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus, eventsPending }) => {
    const models = housesModels(connection);
    await initModels(models);
    // The context of start-up work; requests get theirs from buildApp.
    const ctx = serviceContext(models, { logger });
    await sanitizeStoredListings(ctx);
    await backfillPlaces(ctx);
    // Listings' points from their addresses, in the background (every instance runs it; a listing is claimed first).
    const geocoder = geocoderOf(config);
    const geocoding = geocoder ? startGeocoding(ctx, geocoder, config.GEOCODER_INTERVAL_MS) : undefined;
    if (geocoder) logger.info('geocoder', { geocoder: geocoder.name });
    // Writes of other instances, and nickname changes, arrive as `cache.houses.changed`.
    const responseCache = new ResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES, maxMemberBytes: config.RESPONSE_CACHE_MAX_MEMBER_BYTES });
    responseCache.listen(bus, 'houses', []);
    const stopSweeper = startPictureSweeper({
      connection,
      settings: config,
      service: 'houses',
      logger,
      now: ctx.now,
      referenced: (deletedSince) => referencedPictures(ctx, deletedSince),
    });
    const app = buildApp({
      responseCache,
      connection,
      logger,
      publicKey: config.JWT_PUBLIC_KEY,
      trustProxy: config.TRUST_PROXY,
      media: config,
      ceilings: config,
      eventsPending,
      geocodingPending: geocoding?.kick,
    });
    return {
      app,
      outbox: housesOutbox(models),
      closers: [stopSweeper, ...(geocoding ? [geocoding.stop] : [])],
      responseCache,
    };
  },
});
