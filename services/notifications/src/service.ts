import { defineService, serviceApp, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { readConfig } from './config';
import { LiveNotices } from './domain/live';
import { notificationsConsumers } from './events';
import { initModels, notificationsModels } from './models';
import { apiDocument, operations } from './routes';
import { fieldLabels } from './routes/schemas';
import { DEFAULT_STREAM_SETTINGS, mountStream, type StreamSettings } from './routes/stream';

/**
 * The notifications service, declared once: `runService(service)` (main.ts) and the test kit build it from here.
 * Members' inboxes are cached per member; the consumers declare the inboxes they change (nicknames: the user
 * projection's announcements forget everything). Live streams (issue 38): notices announced over NATS reach the
 * replica holding the member's stream (domain/live.ts); the stream route is mounted before the operations.
 */
export type AppDeps = ServiceAppDeps & {
  /** The live streams' hub (production: one on NATS); absent, a local one (tests without a bus). */
  live?: LiveNotices;
  stream?: StreamSettings;
};

export const service = defineService<
  ReturnType<typeof readConfig>,
  ReturnType<typeof notificationsModels>,
  ReturnType<typeof serviceContext<ReturnType<typeof notificationsModels>>>,
  AppDeps
>({
  name: 'notifications',
  readConfig,
  userProjection: true,
  models: notificationsModels,
  initModels,
  context: serviceContext,
  operations,
  apiDocument,
  fieldLabels,
  deps: (config, runtime) => ({
    live: new LiveNotices(runtime.bus, runtime.logger).start(),
    stream: { heartbeatMs: config.STREAM_HEARTBEAT_MS, resumeMax: config.STREAM_RESUME_MAX },
  }),
  routes: (app, ctx, deps) =>
    mountStream(app, ctx, deps.live ?? new LiveNotices(undefined, deps.logger), deps.connection, deps.stream ?? DEFAULT_STREAM_SETTINGS),
  consumes: (ctx, config, deps) => notificationsConsumers(ctx, config, deps.live),
  startup: async (_ctx, _runtime, deps) => ({ closers: [async () => deps.live?.stop()] }),
  cache: { events: [] },
});

/** The app from deps (tests). */
export const buildApp = (deps: AppDeps): Express => serviceApp(service, deps);
