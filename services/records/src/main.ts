import { EventBus, connectMongo, createLogger, exitOnStartupFailure, listen, shutdownOn, startUserProjection, type Logger } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startCommentRelay } from './events/relay';
import { initModels, recordsModels } from './models';

async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = readConfig();
    logger = createLogger('records', config.LOG_LEVEL);
    const connection = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
    await initModels(recordsModels(connection));
    const bus = await EventBus.connect({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'records', logger });
    const users = await startUserProjection({ bus, connection, service: 'records', logger });
    const relay = await startCommentRelay({ bus, connection, logger, intervalMs: config.OUTBOX_INTERVAL_MS });
    const log = logger;
    const app = buildApp({
      connection,
      logger,
      publicKey: config.JWT_PUBLIC_KEY,
      trustProxy: config.TRUST_PROXY,
      onEventsPending: () => void relay.kick().catch((err: Error) => log.warn('outbox kick failed', { error: err.message })),
    });
    const server = await listen(app, config.PORT, config.HOST);
    logger.info('listening', { port: config.PORT });
    shutdownOn(logger, server, [() => relay.stop(), () => users.stop(), () => bus.close(), () => connection.close()]);
  } catch (err) {
    exitOnStartupFailure(logger, err);
  }
}

void main();
