import { createServiceApp, mountOperations, projectedSuspension, ResponseCache, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { LiveNotices } from './domain/live';
import { notificationsModels } from './models';
import { apiDocument, operations } from './routes';
import { fieldLabels } from './routes/schemas';
import { DEFAULT_STREAM_SETTINGS, mountStream, type StreamSettings } from './routes/stream';

export type AppDeps = ServiceAppDeps & {
  /** The live streams' hub (main.ts: one on NATS); absent, a local one (tests without a bus). */
  live?: LiveNotices;
  stream?: StreamSettings;
};

export function buildApp(deps: AppDeps): Express {
  const ctx = serviceContext(notificationsModels(deps.connection), deps);
  const cache = deps.responseCache ?? new ResponseCache({ enabled: false });
  const live = deps.live ?? new LiveNotices(undefined, deps.logger);
  return createServiceApp({
    service: 'notifications',
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
      // Before the operations: a fixed path of the /api/v1/notifications prefix.
      mountStream(app, ctx, live, deps.connection, deps.stream ?? DEFAULT_STREAM_SETTINGS);
      mountOperations(app, operations, ctx, { responseCache: cache });
    },
  });
}
