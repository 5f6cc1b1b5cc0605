import { createServiceApp, projectedSuspension, ResponseCache, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import { createPictures, defaultMediaSettings, pictureRoutes, type MediaSettings } from '@binzip/shared/dist/media';
import type { Express } from 'express';
import { communityModels } from './models';
import { apiDocument } from './openapi';
import { adminBoardRoutes } from './routes/admin';
import { boardRoutes } from './routes/boards';
import { commentRoutes } from './routes/comments';
import { loveRoutes } from './routes/loves';
import { fieldLabels } from './routes/schemas';

export interface AppDeps extends ServiceAppDeps {
  /** The pictures settings (`MEDIA_*`); every default when absent (GridFS in the service's database). */
  media?: MediaSettings;
}

export function buildApp(deps: AppDeps): Express {
  const pictures = createPictures({
    connection: deps.connection,
    settings: deps.media ?? defaultMediaSettings(),
    service: 'community',
    mountPath: '/api/v1/boards/images',
    logger: deps.logger,
    now: deps.now ?? (() => new Date()),
  });
  const ctx = serviceContext(communityModels(deps.connection), deps);
  const cache = deps.responseCache ?? new ResponseCache({ enabled: false });
  return createServiceApp({
    service: 'community',
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
      app.use('/api/v1/boards/images', pictureRoutes(pictures));
      app.use('/api/v1/boards', boardRoutes(ctx, cache));
      app.use('/api/v1/comments', commentRoutes(ctx, cache));
      app.use('/api/v1/loves', loveRoutes(ctx));
      app.use('/api/v1/admin/boards', adminBoardRoutes(ctx));
    },
  });
}
