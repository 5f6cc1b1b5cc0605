import { RECORDS_COMMENT_CREATED, ResponseCache, runService, serviceContext } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startCommentRelay } from './events/relay';
import { initModels, recordsModels } from './models';

runService({
  name: 'records',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    const models = recordsModels(connection);
    await initModels(models);
    const relay = await startCommentRelay(serviceContext(models, { logger }), { bus, intervalMs: config.OUTBOX_INTERVAL_MS });
    const responseCache = new ResponseCache();
    responseCache.listen(bus, 'records', [RECORDS_COMMENT_CREATED]);
    const app = buildApp({
      responseCache,
      connection,
      logger,
      publicKey: config.JWT_PUBLIC_KEY,
      trustProxy: config.TRUST_PROXY,
      ceilings: config,
      eventsPending: () => void relay.kick(),
    });
    return { app, closers: [() => relay.stop(), async () => responseCache.stop()] };
  },
});
