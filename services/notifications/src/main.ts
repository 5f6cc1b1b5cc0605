import { ResponseCache, runService, serviceContext } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
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
    return {
      app: buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY, ceilings: config, responseCache }),
      consumers: notificationsConsumers(serviceContext(models, { logger }), config),
      responseCache,
    };
  },
});
