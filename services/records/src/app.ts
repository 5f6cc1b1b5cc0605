import { createServiceApp, projectedSuspension, ResponseCache, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { recordsModels } from './models';
import { apiDocument } from './openapi';
import { commentRoutes } from './routes/comments';
import { recordRoutes } from './routes/records';
import { reviewRoutes } from './routes/reviews';
import { templateRoutes } from './routes/templates';
import { fieldLabels } from './routes/schemas';

export type AppDeps = ServiceAppDeps;

export function buildApp(deps: AppDeps): Express {
  const ctx = serviceContext(recordsModels(deps.connection), deps);
  const cache = deps.responseCache ?? new ResponseCache({ enabled: false });
  return createServiceApp({
    service: 'records',
    fieldLabels,
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    ceilings: deps.ceilings,
    connection: deps.connection,
    isSuspended: projectedSuspension(deps.connection),
    apiDocument,
    responseCache: cache,
    routes: (app) => {
      // Separate prefixes: Express matches `/api/v1/record` on whole segments, so it never takes `/api/v1/record_review`.
      app.use('/api/v1/record', recordRoutes(ctx, cache));
      app.use('/api/v1/record_review', reviewRoutes(ctx));
      app.use('/api/v1/record_comment', commentRoutes(ctx));
      app.use('/api/v1/record_category', templateRoutes(ctx));
    },
  });
}
