import { EventBus, connectMongo, createLogger, exitOnStartupFailure, listen, shutdownOn } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { startAuthorProjection } from './events/user-projection';
import { ensureIndexes, houseModels } from './models';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('houses', config.LOG_LEVEL);
  try {
    const connection = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
    await ensureIndexes(houseModels(connection));
    const bus = await EventBus.connect({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'houses', logger });
    const users = await startAuthorProjection(bus, connection, logger);
    const app = buildApp({ connection, logger, publicKey: config.JWT_PUBLIC_KEY, trustProxy: config.TRUST_PROXY });
    const server = await listen(app, config.PORT, config.HOST);
    logger.info('listening', { port: config.PORT, db: config.MONGODB_DB });
    shutdownOn(logger, server, [() => users.stop(), () => bus.close(), () => connection.close()]);
  } catch (err) {
    exitOnStartupFailure(logger, err);
  }
}

void main().catch((err) => exitOnStartupFailure(undefined, err));
