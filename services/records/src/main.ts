import { recordCommentCreated, ResponseCache, runService } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { recordsOutbox } from './events';
import { initModels, recordsModels } from './models';

runService({
  name: 'records',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus, eventsPending }) => {
    const models = recordsModels(connection);
    await initModels(models);
    const responseCache = new ResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES, maxMemberBytes: config.RESPONSE_CACHE_MAX_MEMBER_BYTES });
    responseCache.listen(bus, 'records', [recordCommentCreated.filter]);
    const app = buildApp({
      responseCache,
      connection,
      logger,
      publicKey: config.JWT_PUBLIC_KEY,
      trustProxy: config.TRUST_PROXY,
      ceilings: config,
      eventsPending,
    });
    return { app, outbox: recordsOutbox(models), responseCache };
  },
});
