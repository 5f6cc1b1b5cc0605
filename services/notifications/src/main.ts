import { runService } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startCommentSubscribers } from './events/comment-subscribers';
import { prepareNotificationStore } from './models/notification';

runService({
  name: 'notifications',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    await prepareNotificationStore(connection);
    const comments = await startCommentSubscribers({ bus, connection, logger, maxDeliver: config.EVENT_MAX_DELIVER, backoffMs: config.EVENT_BACKOFF_MS });
    return {
      app: buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY }),
      closers: [() => comments.stop()],
    };
  },
});
