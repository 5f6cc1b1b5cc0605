import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express, RequestHandler } from 'express';
import type { Connection } from 'mongoose';
import { EventBus } from '../bus/connection';
import { startConsumers } from '../bus/consume';
import type { EventConsumer } from '../bus/events';
import { startOutboxRelay, type OutboxDeclaration, type OutboxRelay } from '../bus/outbox';
import { RUNTIME_STREAMS } from '../bus/events';
import { MIB } from '../bus/streams';
import { errorEnvelope } from '../core/wire';
import { ErrorCodes } from '../core/wire';
import { createLogger, type Logger } from '../core/telemetry';
import { connectMongo } from '../store/mongo';
import type { MetricsSettings } from '../core/telemetry';
import { withOperatorEndpoints } from './readiness';
import { followSessionRevocations } from '../bus/members';
import { followRevocationFeed, httpRevocationFeed, type RevocationFeedFollower, type RevocationFeedReader } from '../bus/revocation-feed';
import { startTracing } from '../core/telemetry';
import { projectedUserModel, rememberProjectedUsers, userProjection } from '../bus/members';
import { announcedKeys, cacheChangedSubject, withCacheChanges, type ResponseCache } from '../bus/response-cache';
import { PROJECTED_STATUS_MEMORY_MS, UNHEARD_TTL_MS, type CacheLifetime, type WrittenOutboxDocument } from '../core/operations';
import { disableAllocationSitePretenuring, exitOnFatalErrors, exitOnStartupFailure, shutdownOn, tellLauncherListening, type Shutdown } from '../core/lifecycle';
import { DEFAULT_OUTAGE_EXIT_MS, OutageWatchdog, mongoProbe, natsProbe, settleWithin } from './watchdog';

/**
 * Requests Node's HTTP parser rejects before Express runs (oversized headers or URL, malformed request line)
 * still get an envelope instead of an empty response.
 */
function answerClientErrors(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  const body = JSON.stringify(errorEnvelope('C0002', ErrorCodes.C0002.message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.on('clientError', answerClientErrors);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

/** The environment every service reads (see `serviceConfigShape`). */
export interface BaseServiceConfig {
  HOST: string;
  PORT: number;
  MONGODB_URI: string;
  MONGODB_DB: string;
  NATS_URL: string;
  NATS_PREFIX: string;
  LOG_LEVEL: string;
  METRICS_ENABLED: MetricsSettings['METRICS_ENABLED'];
  METRICS_TOKEN?: MetricsSettings['METRICS_TOKEN'];
  NATS_REPLICAS: number;
  EVENT_RETENTION_HOURS: number;
  DEAD_LETTER_RETENTION_HOURS: number;
  EVENT_STREAM_MAX_MIB: number;
  DEAD_LETTER_STREAM_MAX_MIB: number;
  /** How often the outbox relay retries what an outage left pending. */
  OUTBOX_INTERVAL_MS?: number;
  /** How long MongoDB may stay unreachable (NATS at start-up) before the process exits non-zero (default 30 s). */
  OUTAGE_EXIT_MS?: number;
  /** On SIGTERM: not ready at once, serving on for this long, then closing (default 10 s). */
  SHUTDOWN_DRAIN_MS?: number;
  /** The revocation feed: accounts' addresses, the shared secret of the read, how often (see revocation-feed.ts). */
  ACCOUNTS_URLS?: string[];
  REVOCATION_FEED_TOKEN?: string;
  REVOCATION_POLL_MS?: number;
}

export interface ServiceRuntime<C extends BaseServiceConfig> {
  config: C;
  logger: Logger;
  connection: Connection;
  bus: EventBus;
  /**
   * Kicks the service's outbox relay after a write that stored an event (pass it to buildApp and to contexts of
   * start-up work); the relay's timer publishes whatever a kick missed.
   */
  eventsPending: (written?: WrittenOutboxDocument) => void;
}

/** What a service's `start` hands to `runService`, which starts and stops the events parts in order. */
export interface ServiceParts {
  app: Express;
  /** Published by one relay over these models, kicked by `eventsPending`. */
  outbox?: OutboxDeclaration;
  /** The service's consumers (`src/events/index.ts`), started before the app listens. */
  consumers?: readonly EventConsumer[];
  /** Other things to close on shutdown, in order (after the consumers and the relay, before NATS and MongoDB). */
  closers?: Array<() => Promise<unknown>>;
  /**
   * The app's cache of public answers: the memory of projected users is forgotten with everything it forgets, and its
   * subscriptions end with the shutdown (before NATS closes).
   */
  responseCache?: ResponseCache;
  /**
   * Where this process reads the revocation feed itself (accounts: its own collections); the others read it from
   * accounts over HTTP (`ACCOUNTS_URLS`, `REVOCATION_FEED_TOKEN`).
   */
  revocationFeed?: RevocationFeedReader;
  /** Internal endpoints mounted beside `/ready` and `/metrics`, outside the API and its middleware (accounts' feed). */
  internal?: RequestHandler;
}

export interface ServiceDefinition<C extends BaseServiceConfig> {
  name: string;
  readConfig: () => C;
  /** Keep the local projection of accounts' users (every service but accounts itself). */
  userProjection: boolean;
  /** The cached answers that show projected users' names (`ServiceDeclaration.namesShownBy`, which says why). */
  namesShownBy?: CacheLifetime;
  /** Prepares the store and builds the app; declares the outbox and the consumers `runService` runs. */
  start: (runtime: ServiceRuntime<C>) => Promise<ServiceParts>;
}

/**
 * Turns on the memory of the service's projected users and ties it to the announcements that forget
 * everything (a stored snapshot is one): through the response cache's own subscription where the service has
 * one, so both are forgotten in the same moment; otherwise through its own. Returns how to stop listening.
 */
export function rememberProjectedUsersOfService(
  bus: EventBus,
  connection: Connection,
  service: string,
  responseCache: ResponseCache | undefined,
  namesShownBy?: CacheLifetime,
): () => void {
  // Names live as long as the answers that show them while the cache hears what forgets both; the guard's 1 s stays.
  const namesTtlMs = responseCache && namesShownBy ? () => (responseCache.hearsChanges ? namesShownBy.ttlMs : UNHEARD_TTL_MS) : undefined;
  const memory = rememberProjectedUsers(projectedUserModel(connection), PROJECTED_STATUS_MEMORY_MS, undefined, namesTtlMs);
  if (responseCache) {
    responseCache.alsoForget(() => memory.forget());
    return () => undefined;
  }
  const subscription = bus.connection.subscribe(bus.subject(cacheChangedSubject(service)), {
    callback: (err, msg) => {
      if (err || announcedKeys(msg) === undefined) memory.forget();
    },
  });
  return () => subscription.unsubscribe();
}

/**
 * The second path of revocations (issue 34): accounts reads its own collections, every other service accounts'
 * feed over HTTP when it is configured; without it, revocations and suspensions made while NATS is away wait for
 * the broker, which is said once at start.
 */
function startRevocationFeed(
  config: BaseServiceConfig,
  logger: Logger,
  connection: Connection,
  projection: boolean,
  own: RevocationFeedReader | undefined,
): RevocationFeedFollower | undefined {
  const read =
    own ??
    (config.ACCOUNTS_URLS && config.REVOCATION_FEED_TOKEN
      ? httpRevocationFeed({ urls: config.ACCOUNTS_URLS, token: config.REVOCATION_FEED_TOKEN })
      : undefined);
  if (!read) {
    logger.warn('no revocation feed (ACCOUNTS_URLS, REVOCATION_FEED_TOKEN): revocations made while NATS is away wait for it');
    return undefined;
  }
  return followRevocationFeed({ read, users: projection ? projectedUserModel(connection) : undefined, intervalMs: config.REVOCATION_POLL_MS, logger });
}

/**
 * The one start-up sequence of every service: config (fail fast), logger, its MongoDB database, NATS and its
 * streams, session revocations, the user projection, the service's own parts, its outbox relay and consumers,
 * listen; and the reverse on SIGTERM/SIGINT.
 */
export function runService<C extends BaseServiceConfig>(service: ServiceDefinition<C> | { definition: () => ServiceDefinition<C> }): void {
  disableAllocationSitePretenuring();
  // A declared service (`defineService`, src/service.ts) or a definition with its own `start` (tests of the runtime).
  const definition = 'definition' in service ? service.definition() : service;
  let logger: Logger | undefined;
  let shutdown: Shutdown | undefined;
  exitOnFatalErrors(
    () => logger,
    () => shutdown,
  );
  const boot = async (): Promise<void> => {
    // First, so the HTTP instrumentation is in place before any request (off without OTEL_EXPORTER_OTLP_ENDPOINT).
    const tracing = startTracing(definition.name);
    const config = definition.readConfig();
    const log = createLogger(definition.name, config.LOG_LEVEL);
    logger = log;
    const streams = {
      replicas: config.NATS_REPLICAS,
      eventRetentionMs: config.EVENT_RETENTION_HOURS * 3_600_000,
      deadLetterRetentionMs: config.DEAD_LETTER_RETENTION_HOURS * 3_600_000,
      eventMaxBytes: config.EVENT_STREAM_MAX_MIB * MIB,
      deadLetterMaxBytes: config.DEAD_LETTER_STREAM_MAX_MIB * MIB,
    };
    const outageLimitMs = config.OUTAGE_EXIT_MS ?? DEFAULT_OUTAGE_EXIT_MS;
    // The NATS client waits for its first connection as long as it takes: start-up is bounded like an outage.
    const connection = await settleWithin(
      connectMongo(config.MONGODB_URI, config.MONGODB_DB),
      outageLimitMs,
      `MongoDB unreachable for ${outageLimitMs} ms at start-up`,
    );
    const bus = await settleWithin(
      EventBus.connect({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: definition.name, logger: log, streams, patienceMs: outageLimitMs }),
      outageLimitMs,
      `NATS unreachable for ${outageLimitMs} ms at start-up`,
    );
    // The runtime's own streams, checked against the broker before anything is served: a ceiling that does not
    // fit stops the start with the setting to change (see EventBus.ensureStreams). A JetStream that does not
    // answer yet (a new cluster) is asked again, within the same bound as an outage at start-up.
    await bus.ensureStreamsPatiently(RUNTIME_STREAMS, outageLimitMs);
    const revocations = await followSessionRevocations(bus);
    const users = await startConsumers(bus, definition.userProjection ? [userProjection({ bus, connection, service: definition.name })] : []);
    // The relay starts after `start` (it needs the models); a kick before it exists is made up by its first pass.
    let relay: OutboxRelay | undefined;
    // Publishing is not the request's business: a pass that fails is retried by the relay's timer.
    const eventsPending = (written?: WrittenOutboxDocument): void =>
      void relay?.kick(written).catch((err: Error) => log.warn('outbox kick failed', { error: err.message }));
    const {
      app,
      outbox,
      consumers: declared = [],
      closers = [],
      responseCache,
      revocationFeed,
      internal,
    } = await definition.start({ config, logger: log, connection, bus, eventsPending });
    // Then the streams of the events this service publishes and consumes, the same way: each producer's stream is
    // declared beside its events (@binzip/events), so a process knows only the streams it uses.
    await bus.ensureStreamsPatiently(
      [...(outbox?.events ?? []), ...declared.map((consumer) => consumer.event)].map((event) => event.stream),
      outageLimitMs,
    );
    const feed = startRevocationFeed(config, log, connection, definition.userProjection, revocationFeed);
    const stopUserMemory = definition.userProjection
      ? rememberProjectedUsersOfService(bus, connection, definition.name, responseCache, definition.namesShownBy)
      : () => undefined;
    if (outbox) relay = startOutboxRelay(bus, outbox, { logger: log, intervalMs: config.OUTBOX_INTERVAL_MS });
    // Each consumer's declared cache keys are forgotten once its handler stored the change.
    const consumers = await startConsumers(bus, withCacheChanges(declared, responseCache));
    let draining = false;
    const operated = withOperatorEndpoints(app, {
      service: definition.name,
      readiness: { connection, nats: bus.connection, draining: () => draining },
      metrics: config,
      internal,
    });
    const server = await listen(operated, config.PORT, config.HOST);
    log.info('listening', { url: `http://${config.HOST}:${config.PORT}`, db: config.MONGODB_DB });
    tellLauncherListening(server);
    // Only the store ends the process: without NATS the service still serves everything (reads never need it,
    // events wait in the outbox) and its client reconnects for as long as it takes (natsProbe is `tolerated`).
    const watchdog = new OutageWatchdog({
      probes: [mongoProbe(connection), natsProbe(bus)],
      limitMs: outageLimitMs,
      logger: log,
      onOutage: (name) => shutdown?.(`${name} unreachable`, 1),
    });
    watchdog.start();
    // Consumers and the relay stop first, so in-flight events finish their write and ack before the stores close.
    shutdown = shutdownOn(
      log,
      server,
      [
        () => watchdog.stop(),
        () => consumers.stop(),
        async () => relay?.stop(),
        ...closers,
        async () => responseCache?.stop(),
        async () => stopUserMemory(),
        () => users.stop(),
        () => revocations.stop(),
        async () => feed?.stop(),
        () => bus.close(),
        () => connection.close(),
        () => tracing.stop(),
      ],
      {
        drainMs: config.SHUTDOWN_DRAIN_MS,
        onDrain: () => (draining = true),
      },
    );
  };
  boot().catch((err) => exitOnStartupFailure(logger, err));
}
