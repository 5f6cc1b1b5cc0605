import { runService, serviceContext } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startCommentSubscribers } from './events/comment-subscribers';
import { initModels, notificationsModels } from './models';

runService({
  name: 'notifications',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    const models = notificationsModels(connection);
    await initModels(models);
    const ctx = serviceContext(models, { logger });
    const comments = await startCommentSubscribers(ctx, { bus, maxDeliver: config.EVENT_MAX_DELIVER, backoffMs: config.EVENT_BACKOFF_MS });
    return {
      app: buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY, ceilings: config }),
      closers: [() => comments.stop()],
    };
  },
});
