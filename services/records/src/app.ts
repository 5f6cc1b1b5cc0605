import { createServiceApp, projectedSuspension, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import type { RecordsContext } from './domain/context';
import { recordsModels } from './models';
import { commentRoutes } from './routes/comments';
import { recordRoutes } from './routes/records';
import { reviewRoutes } from './routes/reviews';
import { templateRoutes } from './routes/templates';

export interface AppDeps extends ServiceAppDeps {
  /** The clock for creation dates, the 24 h hit window and the 7-day hot window (tests move it). */
  now?: () => Date;
  /** Called after a comment (with its outbox event) is stored; main.ts kicks the outbox relay. */
  onEventsPending?: () => void;
}

export function buildApp(deps: AppDeps): Express {
  const ctx: RecordsContext = {
    models: recordsModels(deps.connection),
    now: deps.now ?? (() => new Date()),
    logger: deps.logger,
    eventsPending: deps.onEventsPending ?? (() => undefined),
  };
  return createServiceApp({
    service: 'records',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    connection: deps.connection,
    isSuspended: projectedSuspension(deps.connection),
    routes: (app) => {
      app.use(recordRoutes(ctx));
      app.use(reviewRoutes(ctx));
      app.use(commentRoutes(ctx));
      app.use(templateRoutes(ctx));
    },
  });
}
