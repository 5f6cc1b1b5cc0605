import { createServiceApp, type RefusedStatus, type ServiceAppDeps, type SessionsRevokedV1 } from '@binzip/shared';
import type { Express, RequestHandler } from 'express';
import { accountsContext, type Senders } from './domain/context';
import { accountsModels } from './models';
import { apiDocument } from './openapi';
import { adminRoutes } from './routes/admin';
import { agentRoutes } from './routes/agents';
import { addressCeilings } from './routes/ceilings';
import { userRoutes } from './routes/users';
import { fieldLabels } from './routes/schemas';

export interface AppDeps extends ServiceAppDeps {
  /** PEM of the access-token private key: accounts is the one service that signs tokens. */
  privateKey: string;
  senders: Senders;
  bcryptCost?: number;
  passwordHashConcurrency?: number;
  defaultProfileImageUrl?: string;
  /** VERIFICATION_CODE_DIGITS (default 6). */
  codeDigits?: number;
  /** Announces ended sessions to every process (`sessions.revoked` on NATS). */
  publishRevocation?: (event: SessionsRevokedV1) => Promise<void>;
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
  const ctx = accountsContext(accountsModels(deps.connection), { ...deps, keys: { privateKey: deps.privateKey, publicKey: deps.publicKey } });
  const ceilings = addressCeilings(deps.connection, deps.ceilings);
  return createServiceApp({
    service: 'accounts',
    fieldLabels,
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    ceilings: deps.ceilings,
    connection: deps.connection,
    before: [ignoreAuthorizationOnReissue],
    apiDocument,
    // Accounts is the source of the status: it reads its own users, not a projection.
    isSuspended: async (userId) => {
      const user = await ctx.models.users
        .findOne({ _id: userId, status: { $in: ['SUSPENDED', 'WITHDRAWN'] } }, { status: 1 })
        .lean()
        .exec();
      return user ? (user.status as RefusedStatus) : undefined;
    },
    routes: (app) => {
      app.use('/api/v1/users', userRoutes(ctx, ceilings));
      app.use('/api/v1/agents', agentRoutes(ctx, ceilings));
      app.use('/api/v1/admin', adminRoutes(ctx));
    },
  });
}
