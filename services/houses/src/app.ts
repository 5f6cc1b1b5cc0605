import { createServiceApp, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { houseUseCases } from './domain';
import { houseModels } from './models';
import { housesRouter } from './routes/houses';
import { scrapsRouter } from './routes/scraps';

export type AppDeps = ServiceAppDeps;

export function buildApp(deps: AppDeps): Express {
  const useCases = houseUseCases(houseModels(deps.connection));
  return createServiceApp({
    service: 'houses',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    connection: deps.connection,
    routes: (app) => {
      app.use('/api/v1/houses', housesRouter(useCases));
      app.use('/api/v1/scraps', scrapsRouter(useCases));
    },
  });
}
