import { runService, serviceContext } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { notificationsConsumers } from './events';
import { initModels, notificationsModels } from './models';

runService({
  name: 'notifications',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection }) => {
    const models = notificationsModels(connection);
    await initModels(models);
    return {
      app: buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY, ceilings: config }),
      consumers: notificationsConsumers(serviceContext(models, { logger }), config),
    };
  },
});
