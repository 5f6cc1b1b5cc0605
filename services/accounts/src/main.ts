import { runService, startOutboxRelay } from '@binzip/shared';
import { buildApp, domainContext } from './app';
import { readConfig } from './config';
import { bootstrapAdministrators } from './domain/users';
import { createSenders, SmtpMailSender } from './domain/senders';
import { startHouseReportConsumer } from './events/house-reports';
import { accountsModels, initModels } from './models';

// Accounts is where users come from: it publishes their snapshots and keeps no projection of them.
runService({
  name: 'accounts',
  readConfig,
  userProjection: false,
  start: async ({ config, logger, connection, bus }) => {
    const models = accountsModels(connection);
    await initModels(models);
    const relay = await startOutboxRelay({ stream: 'ACCOUNTS', bus, models: [models.users], logger, intervalMs: config.OUTBOX_INTERVAL_MS });
    const houseReports = await startHouseReportConsumer({ bus, models });
    const deps = { connection, bcryptCost: config.BCRYPT_COST, eventsPending: () => void relay.kick() };
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
    const closeMail = async () => {
      if (senders.mail instanceof SmtpMailSender) senders.mail.close();
    };
    return { app, closers: [() => relay.stop(), () => houseReports.stop(), closeMail] };
  },
});
