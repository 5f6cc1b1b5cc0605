import { createServiceApp, mountOperations, projectedSuspension, ResponseCache, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { notificationsModels } from './models';
import { apiDocument, operations } from './routes';
import { fieldLabels } from './routes/schemas';

export type AppDeps = ServiceAppDeps;

export function buildApp(deps: AppDeps): Express {
  const ctx = serviceContext(notificationsModels(deps.connection), deps);
  const cache = deps.responseCache ?? new ResponseCache({ enabled: false });
  return createServiceApp({
    service: 'notifications',
    fieldLabels,
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    ceilings: deps.ceilings,
    connection: deps.connection,
    isSuspended: projectedSuspension(deps.connection),
    apiDocument,
    responseCache: cache,
    routes: (app) => mountOperations(app, operations, ctx, { responseCache: cache }),
  });
}
