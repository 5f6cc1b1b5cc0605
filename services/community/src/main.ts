import { ResponseCache, runService, serviceContext } from '@binzip/shared';
import { startPictureSweeper } from '@binzip/shared/media';
import { buildApp } from './app';
import { readConfig } from './config';
import { sanitizeStoredBoards } from './domain/boards';
import { referencedPictures } from './domain/pictures';
import { communityOutbox } from './events';
import { commentCreatedEvents } from './cache-keys';
import { communityModels, initModels } from './models';

runService({
  name: 'community',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus, eventsPending }) => {
    const models = communityModels(connection);
    await initModels(models);
    const ctx = serviceContext(models, { logger });
    await sanitizeStoredBoards(ctx);
    const stopSweeper = startPictureSweeper({
      connection,
      settings: config,
      service: 'community',
      logger,
      now: ctx.now,
      referenced: (deletedSince) => referencedPictures(ctx, deletedSince),
    });
    // Comments change their board's count and details (nicknames: the user projection announces its changes itself).
    const responseCache = new ResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES, maxMemberBytes: config.RESPONSE_CACHE_MAX_MEMBER_BYTES });
    responseCache.listen(bus, 'community', [commentCreatedEvents]);
    return {
      app: buildApp({
        connection,
        logger,
        publicKey: config.JWT_PUBLIC_KEY,
        trustProxy: config.TRUST_PROXY,
        media: config,
        ceilings: config,
        eventsPending,
        responseCache,
      }),
      outbox: communityOutbox(models),
      closers: [stopSweeper],
      responseCache,
    };
  },
});
