import { runService, serviceContext } from '@binzip/shared';
import { buildApp } from './app';
import { readConfig } from './config';
import { PasswordHasher } from './domain/passwords';
import { createSenders, SmtpMailSender } from './domain/senders';
import { readRevocationFeed, revocationFeedEndpoint } from './domain/revocation-feed';
import { bootstrapAdministrators } from './domain/sign-up';
import { accountsConsumers, accountsOutbox } from './events';
import { accountsModels, initModels } from './models';

// Accounts is where users come from: it publishes their snapshots and keeps no projection of them.
runService({
  name: 'accounts',
  readConfig,
  userProjection: false,
  start: async ({ config, logger, connection, eventsPending }) => {
    const models = accountsModels(connection);
    await initModels(models);
    const created = await bootstrapAdministrators(
      { ...serviceContext(models, { logger, eventsPending }), passwords: new PasswordHasher(config.BCRYPT_COST, config.PASSWORD_HASH_CONCURRENCY) },
      config.ADMIN_BOOTSTRAP,
    );
    if (created.length > 0) logger.info('administrators bootstrapped', { ids: created });
    const senders = createSenders(config);
    const app = buildApp({
      connection,
      logger,
      eventsPending,
      bcryptCost: config.BCRYPT_COST,
      passwordHashConcurrency: config.PASSWORD_HASH_CONCURRENCY,
      passwordCheckMemorySeconds: config.PASSWORD_CHECK_MEMORY_SECONDS,
      publicKey: config.JWT_PUBLIC_KEY,
      privateKey: config.JWT_PRIVATE_KEY,
      senders,
      defaultProfileImageUrl: config.DEFAULT_PROFILE_IMAGE_URL,
      codeDigits: config.VERIFICATION_CODE_DIGITS,
      trustProxy: config.TRUST_PROXY,
      ceilings: config,
    });
    const closeMail = async () => {
      if (senders.mail instanceof SmtpMailSender) senders.mail.close();
    };
    const feedContext = serviceContext(models, { logger });
    return {
      app,
      // Its own instances read the collections themselves; the other services read them through the endpoint.
      revocationFeed: (since) => readRevocationFeed(feedContext, since),
      internal: revocationFeedEndpoint(feedContext, config.REVOCATION_FEED_TOKEN),
      outbox: accountsOutbox(models),
      consumers: accountsConsumers(serviceContext(models, { logger })),
      closers: [closeMail],
    };
  },
});
