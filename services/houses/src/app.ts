import { createServiceApp, mountOperations, projectedSuspension, ResponseCache, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import { createPictures, defaultMediaSettings, type MediaSettings } from '@binzip/shared/media';
import type { Express } from 'express';
import { housesModels } from './models';
import { apiDocument, operations, PICTURES_PATH } from './routes';
import { fieldLabels } from './routes/schemas';

export interface AppDeps extends ServiceAppDeps {
  /** The pictures settings (`MEDIA_*`); every default when absent (GridFS in the service's database). */
  media?: MediaSettings;
  /** Kicks the geocoding job after a listing write (main.ts); absent, nothing is kicked (tests run it themselves). */
  geocodingPending?: () => void;
}

/** Stateless: everything lives in MongoDB, so operators run as many instances as they like. */
export function buildApp(deps: AppDeps): Express {
  const pictures = createPictures({
    connection: deps.connection,
    settings: deps.media ?? defaultMediaSettings(),
    service: 'houses',
    mountPath: PICTURES_PATH,
    logger: deps.logger,
    now: deps.now ?? (() => new Date()),
  });
  const ctx = { ...serviceContext(housesModels(deps.connection), deps), pictures, geocodingPending: deps.geocodingPending };
  const cache = deps.responseCache ?? new ResponseCache({ enabled: false });
  return createServiceApp({
    service: 'houses',
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
