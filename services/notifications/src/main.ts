import { ResponseCache, runService, serviceContext } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { LiveNotices } from './domain/live';
import { notificationsConsumers } from './events';
import { initModels, notificationsModels } from './models';

runService({
  name: 'notifications',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    const models = notificationsModels(connection);
    await initModels(models);
    // Members' inboxes; the consumers forget the ones they store notices in (nicknames: the user projection).
    const responseCache = new ResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES, maxMemberBytes: config.RESPONSE_CACHE_MAX_MEMBER_BYTES });
    responseCache.listen(bus, 'notifications', []);
    // Live streams: notices announced over NATS reach the replica holding the member's stream (domain/live.ts).
    const live = new LiveNotices(bus, logger).start();
    return {
      app: buildApp({
        connection,
        logger,
        publicKey: config.JWT_PUBLIC_KEY,
        trustProxy: config.TRUST_PROXY,
        ceilings: config,
        responseCache,
        live,
        stream: { heartbeatMs: config.STREAM_HEARTBEAT_MS, resumeMax: config.STREAM_RESUME_MAX },
      }),
      consumers: notificationsConsumers(serviceContext(models, { logger }), config, responseCache, live),
      closers: [async () => live.stop()],
      responseCache,
    };
  },
});
