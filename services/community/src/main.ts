import { runService } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { sanitizeStoredBoards } from './domain/boards';
import { startCommentRelay } from './events/outbox';
import { prepareStore } from './models';

runService({
  name: 'community',
  readConfig,
  userProjection: true,
  start: async ({ config, logger, connection, bus }) => {
    const models = await prepareStore(connection);
    await sanitizeStoredBoards(models, logger);
    const relay = await startCommentRelay({ bus, models, logger, intervalMs: config.OUTBOX_INTERVAL_MS });
    const app = buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, relay, trustProxy: config.TRUST_PROXY });
    return { app, closers: [() => relay.stop()] };
  },
});
