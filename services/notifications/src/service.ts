import { defineService, serviceApp, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import { readFileSync } from 'node:fs';
import type { Express } from 'express';
import { readConfig, type Config } from './config';
import type { NotificationsContext, PushSender } from './domain/context';
import { LiveNotices } from './domain/live';
import { WebPushSender } from './domain/push-sender';
import { notificationsConsumers } from './events';
import { initModels, notificationsModels } from './models';
import { apiDocument, operations } from './routes';
import { fieldLabels } from './routes/schemas';
import { DEFAULT_STREAM_SETTINGS, mountStream, type StreamSettings } from './routes/stream';

/**
 * The notifications service, declared once: `runService(service)` (main.ts) and the test kit build it from here.
 * Members' inboxes are cached per member; the consumers declare the inboxes they change (nicknames: the user
 * projection's announcements forget everything). Live streams (issue 38): notices announced over NATS reach the
 * replica holding the member's stream (domain/live.ts); the stream route is mounted before the operations. Stored
 * notices are also pushed to the members' browsers (Web Push, domain/push.ts) when the VAPID keys are set.
 */
export type AppDeps = ServiceAppDeps & {
  /** The live streams' hub (production: one on NATS); absent, a local one (tests without a bus). */
  live?: LiveNotices;
  stream?: StreamSettings;
  /** Web Push (production: web-push with the VAPID keys of the environment); absent, nothing is pushed. */
  push?: PushSender;
};

/** The VAPID keys make Web Push; without them the service pushes nothing (and says so: the key is null). */
function pushSender(config: Config): WebPushSender | undefined {
  const { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: subject } = config;
  if (!publicKey || !privateKey || !subject) return undefined;
  return new WebPushSender({
    publicKey,
    privateKey,
    subject,
    endpointHosts: config.PUSH_ENDPOINT_HOSTS,
    ttlSeconds: config.PUSH_TTL_SECONDS,
    timeoutMs: config.PUSH_TIMEOUT_MS,
    ca: config.PUSH_CA_FILE ? readFileSync(config.PUSH_CA_FILE, 'utf8') : undefined,
  });
}

export const service = defineService<ReturnType<typeof readConfig>, ReturnType<typeof notificationsModels>, NotificationsContext, AppDeps>({
  name: 'notifications',
  readConfig,
  userProjection: true,
  models: notificationsModels,
  initModels,
  context: (models: ReturnType<typeof notificationsModels>, deps: AppDeps): NotificationsContext => ({ ...serviceContext(models, deps), push: deps.push }),
  operations,
  apiDocument,
  fieldLabels,
  deps: (config, runtime) => ({
    live: new LiveNotices(runtime.bus, runtime.logger).start(),
    stream: { heartbeatMs: config.STREAM_HEARTBEAT_MS, resumeMax: config.STREAM_RESUME_MAX },
    push: pushSender(config),
  }),
  routes: (app, ctx, deps) =>
    mountStream(app, ctx, deps.live ?? new LiveNotices(undefined, deps.logger), deps.connection, deps.stream ?? DEFAULT_STREAM_SETTINGS),
  consumes: (ctx, config, deps) => notificationsConsumers(ctx, config, deps.live),
  startup: async (_ctx, _runtime, deps) => ({
    closers: [async () => deps.live?.stop(), async () => (deps.push instanceof WebPushSender ? deps.push.close() : undefined)],
  }),
  cache: { events: [] },
});

/** The app from deps (tests). */
export const buildApp = (deps: AppDeps): Express => serviceApp(service, deps);
