import { createServiceApp, ignoreAuthorizationOn, mountOperations, type RefusedStatus, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { accountsContext, type Senders } from './domain/context';
import { accountsModels } from './models';
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

export function buildApp(deps: AppDeps): Express {
  const ctx = accountsContext(accountsModels(deps.connection), { ...deps, keys: { privateKey: deps.privateKey, publicKey: deps.publicKey } });
  return createServiceApp({
    service: 'accounts',
    fieldLabels,
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    ceilings: deps.ceilings,
    connection: deps.connection,
    before: [ignoreAuthorizationOn(operations)],
    apiDocument,
    // Accounts is the source of the status: it reads its own users, not a projection.
    isSuspended: async (userId) => {
      const user = await ctx.models.users
        .findOne({ _id: userId, status: { $in: ['SUSPENDED', 'WITHDRAWN'] } }, { status: 1 })
        .lean()
        .exec();
      return user ? (user.status as RefusedStatus) : undefined;
    },
    routes: (app) => mountOperations(app, operations, ctx, { ceilings: addressCeilings(deps.connection, deps.ceilings) }),
  });
}
