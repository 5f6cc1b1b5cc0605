import { createServiceApp, type Logger } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import { notificationRoutes } from './routes/notifications';

export interface AppDeps {
  connection: Connection;
  logger: Logger;
  publicKey: string;
  trustProxy?: string;
}

export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    service: 'notifications',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    healthy: () => deps.connection.readyState === 1,
    routes: (app) => {
      app.use('/api/v1/notifications', notificationRoutes({ connection: deps.connection }));
    },
  });
}
