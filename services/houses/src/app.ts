import { createServiceApp, projectedSuspension, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { houseUseCases } from './domain';
import { houseModels } from './models';
import { adminRouter } from './routes/admin';
import { housesRouter } from './routes/houses';
import { scrapsRouter } from './routes/scraps';

export interface AppDeps extends ServiceAppDeps {
  /** Kicks the outbox relay after a report stored its event; without one, events wait for the relay's timer. */
  eventsPending?: () => void;
}

export function buildApp(deps: AppDeps): Express {
  const models = houseModels(deps.connection);
  const useCases = houseUseCases(models, deps.eventsPending);
  return createServiceApp({
    service: 'houses',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    connection: deps.connection,
    isSuspended: projectedSuspension(deps.connection),
    routes: (app) => {
      app.use('/api/v1/houses', housesRouter(useCases));
      app.use('/api/v1/scraps', scrapsRouter(useCases));
      app.use('/api/v1/admin', adminRouter(models));
    },
  });
}
