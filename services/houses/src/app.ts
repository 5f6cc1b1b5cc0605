import { createServiceApp, projectedSuspension, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { housesModels } from './models';
import { apiDocument } from './openapi';
import { adminRoutes } from './routes/admin';
import { houseRoutes } from './routes/houses';
import { scrapRoutes } from './routes/scraps';

export type AppDeps = ServiceAppDeps;

/** Stateless: everything lives in MongoDB, so operators run as many instances as they like. */
export function buildApp(deps: AppDeps): Express {
  const ctx = serviceContext(housesModels(deps.connection), deps);
  return createServiceApp({
    service: 'houses',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    connection: deps.connection,
    isSuspended: projectedSuspension(deps.connection),
    apiDocument,
    routes: (app) => {
      app.use('/api/v1/houses', houseRoutes(ctx));
      app.use('/api/v1/scraps', scrapRoutes(ctx));
      app.use('/api/v1/admin', adminRoutes(ctx));
    },
  });
}
