import { createServiceApp, type ServiceAppDeps } from '@binzip/shared';
import type { Express, RequestHandler } from 'express';
import type { DomainContext } from './domain/context';
import type { Senders } from './domain/verification';
import { DEFAULT_PROFILE_IMAGE_URL } from './domain/rules';
import { accountsModels } from './models';
import { adminRoutes } from './routes/admin';
import { agentRoutes, userRoutes } from './routes/users';

export interface AppDeps extends ServiceAppDeps {
  privateKey: string;
  senders: Senders;
  bcryptCost?: number;
  defaultProfileImageUrl?: string;
  now?: () => Date;
  /** Kicks the outbox relay after a write that stored an event. */
  eventsPending?: () => void;
}

export function domainContext(deps: Pick<AppDeps, 'connection' | 'bcryptCost' | 'now' | 'eventsPending'>): DomainContext {
  return {
    connection: deps.connection,
    models: accountsModels(deps.connection),
    bcryptCost: deps.bcryptCost ?? 10,
    now: deps.now ?? (() => new Date()),
    eventsPending: deps.eventsPending ?? (() => undefined),
  };
}

/**
 * Reissue is how a client recovers from an expired access token, and clients commonly still send that
 * token in the Authorization header; the token that matters there is the one in the body.
 */
const ignoreAuthorizationOnReissue: RequestHandler = (req, _res, next) => {
  // Express routes case-insensitively and ignores a trailing slash; match the same way.
  if (req.path.toLowerCase().replace(/\/+$/, '') === '/api/v1/users/reissue') delete req.headers.authorization;
  next();
};

export function buildApp(deps: AppDeps): Express {
  const ctx = domainContext(deps);
  return createServiceApp({
    service: 'accounts',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    connection: deps.connection,
    before: [ignoreAuthorizationOnReissue],
    // Accounts is the source of the status: it reads its own users, not a projection.
    isSuspended: async (userId) => (await ctx.models.users.exists({ _id: userId, status: 'SUSPENDED' }).exec()) !== null,
    routes: (app) => {
      app.use(
        '/api/v1/users',
        userRoutes({
          ctx,
          keys: { privateKey: deps.privateKey, publicKey: deps.publicKey },
          senders: deps.senders,
          logger: deps.logger,
          defaultProfileImageUrl: deps.defaultProfileImageUrl ?? DEFAULT_PROFILE_IMAGE_URL,
        }),
      );
      app.use('/api/v1/agents', agentRoutes(ctx));
      app.use('/api/v1/admin', adminRoutes(ctx));
    },
  });
}
