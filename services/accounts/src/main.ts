import { EventBus, connectMongo, startOutboxRelay, createLogger, exitOnStartupFailure, listen, shutdownOn } from '@binzip/shared';
import { buildApp, domainContext } from './app';
import { readConfig } from './config';
import { bootstrapAdministrators } from './domain/users';
import { createSenders, SmtpMailSender } from './domain/senders';
import { accountsModels, initModels } from './models';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('accounts', config.LOG_LEVEL);
  const connection = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const models = accountsModels(connection);
  await initModels(models);
  const bus = await EventBus.connect({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'accounts', logger });
  const relay = await startOutboxRelay({ stream: 'ACCOUNTS', bus, models: [models.users], logger, intervalMs: config.OUTBOX_INTERVAL_MS });
  const eventsPending = () => void relay.kick();
  const deps = { connection, bcryptCost: config.BCRYPT_COST, eventsPending };
  const created = await bootstrapAdministrators(domainContext(deps), config.ADMIN_BOOTSTRAP);
  if (created.length > 0) logger.info('administrators bootstrapped', { ids: created });
  const senders = createSenders(config);
  const app = buildApp({
    ...deps,
    logger,
    publicKey: config.JWT_PUBLIC_KEY,
    privateKey: config.JWT_PRIVATE_KEY,
    senders,
    defaultProfileImageUrl: config.DEFAULT_PROFILE_IMAGE_URL,
    trustProxy: config.TRUST_PROXY,
  });
  const server = await listen(app, config.PORT, config.HOST);
  logger.info('listening', { port: config.PORT });
  shutdownOn(logger, server, [
    () => relay.stop(),
    async () => {
      if (senders.mail instanceof SmtpMailSender) senders.mail.close();
    },
    () => bus.close(),
    () => connection.close(),
  ]);
}

main().catch((err) => exitOnStartupFailure(undefined, err));
