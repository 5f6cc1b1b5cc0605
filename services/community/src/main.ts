import { COMMUNITY_COMMENT_CREATED, ResponseCache, runService, serviceContext } from '@binzip/shared';
import { startPictureSweeper } from '@binzip/shared/dist/media';
import { buildApp } from './app';
import { readConfig } from './config';
import { sanitizeStoredBoards } from './domain/boards';
import { referencedPictures } from './domain/pictures';
import { startCommentRelay } from './events/comment-relay';
import { communityModels, initModels } from './models';

runService({
  name: 'community',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    const models = communityModels(connection);
    await initModels(models);
    const ctx = serviceContext(models, { logger });
    await sanitizeStoredBoards(ctx);
    const relay = await startCommentRelay(ctx, { bus, intervalMs: config.OUTBOX_INTERVAL_MS });
    // Publishing is not the request's business: a pass that fails is retried by the relay's timer.
    const eventsPending = (): void => {
      relay.kick().catch((err: Error) => logger.warn('outbox kick failed', { error: err.message }));
    };
    const stopSweeper = startPictureSweeper({
      connection,
      settings: config,
      service: 'community',
      logger,
      now: ctx.now,
      referenced: (deletedSince) => referencedPictures(ctx, deletedSince),
    });
    // Comments change counts and details (nicknames: the user projection announces its changes itself).
    const responseCache = new ResponseCache();
    responseCache.listen(bus, 'community', [COMMUNITY_COMMENT_CREATED]);
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
      closers: [() => relay.stop(), async () => responseCache.stop(), stopSweeper],
    };
  },
});
