import { connectMongo, createLogger, EventBus, exitOnStartupFailure, listen, shutdownOn, startUserProjection, type Logger } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startCommentRelay } from './events/outbox';
import { prepareStore } from './models';

async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = readConfig();
    logger = createLogger('community', config.LOG_LEVEL);
    const connection = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
    const models = await prepareStore(connection);
    const bus = await EventBus.connect({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'community', logger });
    const users = await startUserProjection({ bus, connection, service: 'community', logger });
    const relay = await startCommentRelay({ bus, models, logger, intervalMs: config.OUTBOX_INTERVAL_MS });
    const app = buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, relay, trustProxy: config.TRUST_PROXY });
    const server = await listen(app, config.PORT, config.HOST);
    logger.info('listening', { port: config.PORT });
    shutdownOn(logger, server, [() => relay.stop(), () => users.stop(), () => bus.close(), () => connection.close()]);
  } catch (err) {
    exitOnStartupFailure(logger, err);
  }
}

void main();
