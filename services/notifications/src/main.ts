import { connectMongo, createLogger, EventBus, exitOnStartupFailure, listen, shutdownOn, startUserProjection } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startCommentSubscribers } from './events/comment-subscribers';
import { prepareNotificationStore } from './models/notification';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('notifications', config.LOG_LEVEL);
  try {
    const connection = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
    await prepareNotificationStore(connection);
    const bus = await EventBus.connect({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'notifications', logger });
    const users = await startUserProjection({ bus, connection, service: 'notifications', logger });
    const comments = await startCommentSubscribers({ bus, connection, logger, maxDeliver: config.EVENT_MAX_DELIVER, backoffMs: config.EVENT_BACKOFF_MS });
    const app = buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY });
    const server = await listen(app, config.PORT, config.HOST);
    logger.info('listening', { port: config.PORT });
    // Consumers stop first so in-flight events finish their write and ack before the stores close.
    shutdownOn(logger, server, [() => comments.stop(), () => users.stop(), () => bus.close(), () => connection.close()]);
  } catch (err) {
    exitOnStartupFailure(logger, err);
  }
}

void main().catch((err) => exitOnStartupFailure(undefined, err));
