import { defineService, ignoreAuthorizationOn, REFUSED_STATUSES, serviceApp, type RefusedStatus, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { readConfig } from './config';
import { accountsContext, type Senders } from './domain/context';
import { readRevocationFeed, revocationFeedEndpoint } from './domain/revocation-feed';
import { createSenders, SmtpMailSender } from './domain/senders';
import { bootstrapAdministrators } from './domain/sign-up';
import { accountsConsumers, accountsOutbox } from './events';
import { accountsModels, initModels, type AccountsModels } from './models';
import { apiDocument, operations } from './routes';
import { addressCeilings } from './routes/ceilings';
import { fieldLabels } from './routes/schemas';

export interface AppDeps extends ServiceAppDeps {
  /** PEM of the access-token private key: accounts is the one service that signs tokens. */
  privateKey: string;
  senders: Senders;
  bcryptCost?: number;
  passwordHashConcurrency?: number;
  /** PASSWORD_CHECK_MEMORY_SECONDS (default 600; 0: bcrypt on every sign-in). */
  passwordCheckMemorySeconds?: number;
  defaultProfileImageUrl?: string;
  /** VERIFICATION_CODE_DIGITS (default 6). */
  codeDigits?: number;
}

/**
 * The accounts service, declared once: `runService(service)` (main.ts) and the test kit build it from here.
 * Accounts is where users come from: it publishes their snapshots and keeps no projection of them. One context
 * (so one password hasher) serves the requests, the consumers and the start-up's administrators.
 */
export const service = defineService({
  name: 'accounts',
  readConfig,
  userProjection: false,
  models: accountsModels,
  initModels,
  deps: (config) => ({
    privateKey: config.JWT_PRIVATE_KEY,
    senders: createSenders(config),
    bcryptCost: config.BCRYPT_COST,
    passwordHashConcurrency: config.PASSWORD_HASH_CONCURRENCY,
    passwordCheckMemorySeconds: config.PASSWORD_CHECK_MEMORY_SECONDS,
    defaultProfileImageUrl: config.DEFAULT_PROFILE_IMAGE_URL,
    codeDigits: config.VERIFICATION_CODE_DIGITS,
  }),
  context: (models: AccountsModels, deps: AppDeps) => accountsContext(models, { ...deps, keys: { privateKey: deps.privateKey, publicKey: deps.publicKey } }),
  operations,
  apiDocument,
  fieldLabels,
  before: [ignoreAuthorizationOn(operations)],
  // Accounts is the source of the status: it reads its own users, not a projection.
  isSuspended: (ctx) => async (userId) => {
    const user = await ctx.models.users
      .findOne({ _id: userId, status: { $in: [...REFUSED_STATUSES] } }, { status: 1 })
      .lean()
      .exec();
    return user ? (user.status as RefusedStatus) : undefined;
  },
  ceilings: (deps) => addressCeilings(deps.connection, deps.ceilings),
  outbox: accountsOutbox,
  consumes: (ctx) => accountsConsumers(ctx),
  startup: async (ctx, { config, logger }) => {
    const created = await bootstrapAdministrators(ctx, config.ADMIN_BOOTSTRAP);
    if (created.length > 0) logger.info('administrators bootstrapped', { ids: created });
    const closeMail = async () => {
      if (ctx.senders.mail instanceof SmtpMailSender) ctx.senders.mail.close();
    };
    return {
      // Its own instances read the collections themselves; the other services read them through the endpoint.
      revocationFeed: (since) => readRevocationFeed(ctx, since),
      internal: revocationFeedEndpoint(ctx, config.REVOCATION_FEED_TOKEN),
      closers: [closeMail],
    };
  },
});

/** The app from deps (tests). */
export const buildApp = (deps: AppDeps): Express => serviceApp(service, deps);
