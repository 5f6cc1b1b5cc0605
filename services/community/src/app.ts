import { createServiceApp, projectedSuspension, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { communityModels } from './models';
import { adminRoutes } from './routes/admin';
import { boardRoutes } from './routes/boards';
import { commentRoutes } from './routes/comments';
import { loveRoutes } from './routes/loves';

export interface AppDeps extends ServiceAppDeps {
  /** The outbox relay, kicked after a comment is saved; without one, events wait in the store. */
  relay?: { kick(): Promise<void> };
}

export function buildApp(deps: AppDeps): Express {
  const models = communityModels(deps.connection);
  const onCommentSaved = (): void => {
    // Publishing is not the request's business: a failure here is retried by the relay's timer.
    deps.relay?.kick().catch((err: Error) => deps.logger.warn('outbox kick failed', { error: err.message }));
  };
  return createServiceApp({
    service: 'community',
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    connection: deps.connection,
    isSuspended: projectedSuspension(deps.connection),
    routes: (app) => {
      app.use('/api/v1/boards', boardRoutes(models));
      app.use('/api/v1/comments', commentRoutes(models, onCommentSaved));
      app.use('/api/v1/loves', loveRoutes(models));
      app.use('/api/v1/admin', adminRoutes(models));
    },
  });
}
