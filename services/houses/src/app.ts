import { createServiceApp, type Logger } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import { houseUseCases } from './domain';
import { houseModels } from './models';
import { housesRouter } from './routes/houses';
import { scrapsRouter } from './routes/scraps';

export interface AppDeps {
  connection: Connection;
  logger: Logger;
  publicKey: string;
  trustProxy?: string;
}

export function buildApp(deps: AppDeps): Express {
  const useCases = houseUseCases(houseModels(deps.connection));
  return createServiceApp({
    service: 'houses',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    healthy: () => deps.connection.readyState === 1,
    routes: (app) => {
      app.use('/api/v1/houses', housesRouter(useCases));
      app.use('/api/v1/scraps', scrapsRouter(useCases));
    },
  });
}
