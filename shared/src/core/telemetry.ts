/**
 * What a process tells its operators: the log (every line of a request carries its id), the traces and the
 * metrics. One module because each feeds the others: a log line names its trace, a trace its request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { timingSafeEqual } from 'node:crypto';
import { createHistogram, monitorEventLoopDelay, PerformanceObserver, type RecordableHistogram } from 'node:perf_hooks';
import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import SonicBoom from 'sonic-boom';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { z } from 'zod';

/** What every log line of one request carries, without threading it through calls. */

export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

const addRequestId = winston.format((info) => {
  const requestId = currentRequestId();
  if (requestId && info.requestId === undefined) info.requestId = requestId;
  // With tracing on, a line written inside a traced request or event names its trace (the traces below).
  const traced = currentTraceIds();
  if (traced && info.traceId === undefined) {
    info.traceId = traced.traceId;
    info.spanId = traced.spanId;
  }
  return info;
});

export type Logger = winston.Logger;

let stdout: SonicBoom | undefined;

/**
 * The process's standard output as an asynchronous, self-batching stream (pino's sonic-boom). Written through
 * `process.stdout`, a line is one synchronous write(2) on the event loop: on a pipe (compose, Kubernetes, the
 * launcher) that was about 7 % of a busy service's profile in the site benchmark, one system call per access
 * line, blocking the event loop whenever the reader of the pipe fell behind. Here lines are written off the
 * event loop, together: once 4 KiB are waiting, and LOG_FLUSH_MS after a line whatever is waiting. What is still
 * buffered when the process exits (fatal errors end it with `process.exit`) is written synchronously on `exit`.
 */
const LOG_FLUSH_MS = 100;

function stdoutStream(): SonicBoom {
  if (!stdout) {
    const stream = new SonicBoom({ fd: process.stdout.fd, sync: false, minLength: 4096 });
    process.on('exit', () => {
      try {
        stream.flushSync();
      } catch {
        // Standard output already gone: nothing left to tell anyone.
      }
    });
    stdout = stream;
  }
  return stdout;
}

/**
 * Flushes the stream LOG_FLUSH_MS after the first line written since the last flush. Not sonic-boom's
 * `periodicFlush`: that one writes every interval whether or not anything waits, and an empty asynchronous write
 * is a round trip through libuv's thread pool, ten a second in every idle process (issue 37: what each replica
 * costs while nobody asks it anything).
 */
let flushTimer: NodeJS.Timeout | undefined;
function writeLine(line: string): void {
  const stream = stdoutStream();
  stream.write(line);
  flushTimer ??= setTimeout(() => {
    flushTimer = undefined;
    stream.flush();
  }, LOG_FLUSH_MS).unref();
}

/** winston's formatted line of an entry (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

/** Writes each formatted line to the batching standard output above. */
class StdoutTransport extends TransportStream {
  override log(info: unknown, next: () => void): void {
    writeLine(`${String((info as Record<symbol, unknown>)[MESSAGE])}\n`);
    next();
  }
}

/** JSON lines on stdout; `LOG_LEVEL=silent` turns logging off (the test default). */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    defaultMeta: { service },
    format: winston.format.combine(addRequestId(), winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [new StdoutTransport()],
  });
}

/**
 * OpenTelemetry tracing of every process (gateway and services). Off unless `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: then no SDK is loaded, the API below is OpenTelemetry's
 * no-op and nothing is stored or sent. When on, the SDK's instrumentations trace incoming and outgoing HTTP
 * requests with W3C `traceparent` (instrumentation-http; a server span is named by its Express route template,
 * `POST /api/v1/comments`, through instrumentation-express) and every MongoDB command (instrumentation-mongodb);
 * NATS has no official instrumentation, so the project's own spans below cover it: outbox events keep the context
 * of the request that wrote them, the relay puts it in the NATS message headers, and consumers continue it.
 * Spans go out as OTLP/HTTP (JSON).
 */

/** W3C trace context as text fields (`traceparent`, `tracestate`): how it is stored with an outbox event. */
export type TraceCarrier = Record<string, string>;

const TRACER_NAME = '@binzip/shared';
/**
 * Paths probed every few seconds by orchestrators and scrapers, and the revocation feed every process reads every
 * few seconds: tracing them would only bury real traces.
 */
const UNTRACED_PATHS = /^\/(health|ready|metrics|internal\/revocations)(\?|$)/;

/** What the instrumentations patch, down to the driver's files instrumentation-mongodb hooks (mongodb 6.4+). */
const INSTRUMENTED_PACKAGES = ['express', 'mongodb/lib/cmap/connection.js', 'mongodb/lib/cmap/connect.js', 'mongodb/lib/sessions.js'];

/** Loaded already (a process without MongoDB, the gateway, is not made to load the driver). */
function isLoaded(name: string): boolean {
  try {
    return require.resolve(name) in require.cache;
  } catch {
    return false;
  }
}

export interface Tracing {
  enabled: boolean;
  /** Exports what is still buffered, then stops (part of the orderly shutdown). */
  stop(): Promise<void>;
}

/** Sets the route of the active HTTP server span; installed by `startTracing` (nothing to name when tracing is off). */
let setServerRoute: ((route: string) => void) | undefined;

/**
 * Names the active HTTP server span by `route` (`<method> <route>`, attribute `http.route`) for a request no Express
 * route answers: the gateway's proxied requests, by the route prefix that chose their service. Costs nothing when
 * tracing is off.
 */
export function nameServerRoute(route: string): void {
  setServerRoute?.(route);
}

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && env.OTEL_SDK_DISABLED !== 'true';
}

/**
 * Starts tracing for the process named `service` (its `service.name` unless `OTEL_SERVICE_NAME` says
 * otherwise). Call it first thing in a process's start-up, before any request is served; the SDK packages
 * are loaded only when tracing is on.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  if (!tracingEnabled(env)) return { enabled: false, stop: async () => undefined };
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { MongoDBInstrumentation } = require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { getRPCMetadata, RPCType } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || service }),
    // The exporter reads the OTEL_EXPORTER_OTLP_* settings itself (endpoint + /v1/traces, headers, timeout).
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // W3C trace context propagation and the AsyncLocalStorage context manager.
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        // The gateway's health checks of its upstreams and other background calls start no traces of their own.
        requireParentforOutgoingSpans: true,
      }),
      // Only the route handler gets a span (`request handler`, with `http.route`): the route template still names
      // the server span, and the dozen middlewares every request passes would only bury it.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // Commands outside any trace (index builds, the outbox relay's polling, health pings) start no trace.
      new MongoDBInstrumentation({ requireParentSpan: true }),
    ],
  });
  // The process's entry module loaded express and the MongoDB driver before this point (through @binzip/shared).
  // The instrumentations patch a module when it is required after they are registered, and what they patch is
  // shared (http's exports, express's Router and application prototypes, the driver's Connection prototype and
  // connect function), so requiring the loaded copies again patches the ones in use. Express apps must be built
  // after this call (routes declared before are not traced); runService and the gateway build theirs after it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  for (const loaded of ['http', 'https', ...INSTRUMENTED_PACKAGES.filter(isLoaded)]) require(loaded);
  // instrumentation-http names the server span by the route its request's RPC metadata holds when it ends.
  setServerRoute = (route) => {
    const metadata = getRPCMetadata(context.active());
    if (metadata?.type === RPCType.HTTP) metadata.route = route;
  };
  return {
    enabled: true,
    stop: async () => {
      setServerRoute = undefined;
      unregister();
      await provider.shutdown();
    },
  };
}

/** The trace and span id of the active span, for log lines; empty when tracing is off or nothing is traced. */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return trace.isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : undefined;
}

/** The active trace context as text fields (nothing when tracing is off). */
export function currentTraceCarrier(): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

const tracer = () => trace.getTracer(TRACER_NAME);

/**
 * Runs `work` in a messaging span (`<subject> publish` or `<subject> process`) whose parent is the context
 * carried by `parent` (a stored outbox event's, a message's headers) and nothing else (a relay pass or a
 * consumer loop runs in whatever context started it, which is not the event's), or the active context when
 * there is no carrier; the span is ended and marked as failed when `work` throws.
 */
export async function inMessagingSpan<T>(
  kind: 'publish' | 'process',
  subject: string,
  parent: { get(key: string): string | undefined } | undefined,
  work: (span: Span, active: Context) => Promise<T>,
): Promise<T> {
  const parentContext = parent
    ? propagation.extract(ROOT_CONTEXT, parent, {
        get: (carrier, key) => carrier.get(key) || undefined,
        keys: () => ['traceparent', 'tracestate'],
      })
    : context.active();
  const span = tracer().startSpan(
    `${subject} ${kind}`,
    {
      kind: kind === 'publish' ? SpanKind.PRODUCER : SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.operation.type': kind === 'publish' ? 'send' : 'process' },
    },
    parentContext,
  );
  const active = trace.setSpan(parentContext, span);
  try {
    return await context.with(active, () => work(span, active));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/** Writes the trace context of `active` into a message's headers (`set` of NATS headers). */
export function injectTraceContext(active: Context, headers: { set(key: string, value: string): void }): void {
  propagation.inject(active, headers, { set: (carrier, key, value) => carrier.set(key, value) });
}

/**
 * Prometheus metrics of one process. One registry per process: the HTTP middleware, the outbox relays and
 * the event consumers all record into it, and `/metrics` serves it.
 */
export const metricsRegistry = new Registry();

const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request durations by method, route template and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const eventsDelivered = new Counter({
  name: 'binzip_events_delivered_total',
  help: 'Event deliveries handed to a consumer (first deliveries and redeliveries)',
  labelNames: ['stream', 'consumer'] as const,
  registers: [metricsRegistry],
});

export const eventsRedelivered = new Counter({
  name: 'binzip_events_redelivered_total',
  help: 'Deliveries of an event the consumer had already received at least once',
  labelNames: ['stream', 'consumer'] as const,
  registers: [metricsRegistry],
});

export const eventsFailed = new Counter({
  name: 'binzip_events_failed_total',
  help: 'Deliveries whose handling failed (redelivered later, or dead-lettered on the last attempt)',
  labelNames: ['stream', 'consumer'] as const,
  registers: [metricsRegistry],
});

export const eventsTerminated = new Counter({
  name: 'binzip_events_terminated_total',
  help: 'Events a consumer gave up on: invalid payload or deliveries exhausted',
  labelNames: ['stream', 'consumer', 'reason'] as const,
  registers: [metricsRegistry],
});

export const eventsDeadLettered = new Counter({
  name: 'binzip_events_dead_lettered_total',
  help: 'Terminated events copied to the dead-letter stream',
  labelNames: ['stream', 'consumer', 'reason'] as const,
  registers: [metricsRegistry],
});

/** What an outbox relay reports about the events still waiting in its collections. */
export interface OutboxBacklogSource {
  stream: string;
  backlog(): Promise<Array<{ collection: string; pending: number; oldestCreatedAt: Date | undefined }>>;
}

const outboxSources = new Set<OutboxBacklogSource>();

/** Relays register while they run; a scrape asks each for its backlog. */
export function registerOutboxSource(source: OutboxBacklogSource): () => void {
  outboxSources.add(source);
  return () => outboxSources.delete(source);
}

/** One backlog read per scrape serves both outbox gauges. */
let backlogRead: Promise<Array<{ stream: string; collection: string; pending: number; oldestCreatedAt: Date | undefined }>> | undefined;
function readBacklogs() {
  backlogRead ??= (async () => {
    const rows = [];
    for (const source of outboxSources) {
      const backlog = await source.backlog().catch(() => []);
      for (const row of backlog) rows.push({ stream: source.stream, ...row });
    }
    return rows;
  })().finally(() => {
    backlogRead = undefined;
  });
  return backlogRead;
}

new Gauge({
  name: 'binzip_outbox_pending_events',
  help: 'Events stored with their write and not yet published, by stream and collection',
  labelNames: ['stream', 'collection'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const row of await readBacklogs()) this.set({ stream: row.stream, collection: row.collection }, row.pending);
  },
});

new Gauge({
  name: 'binzip_outbox_oldest_pending_age_seconds',
  help: 'Age of the oldest event not yet published (0 when none is pending), by stream and collection',
  labelNames: ['stream', 'collection'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    const now = Date.now();
    for (const row of await readBacklogs()) {
      const age = row.oldestCreatedAt ? Math.max(0, (now - row.oldestCreatedAt.getTime()) / 1000) : 0;
      this.set({ stream: row.stream, collection: row.collection }, age);
    }
  },
});

/** A durable consumer's backlog as JetStream counts it (not yet delivered plus delivered and not yet acked). */
export interface ConsumerLagSource {
  stream: string;
  consumer: string;
  pending(): Promise<number>;
}

const consumerLagSources = new Set<ConsumerLagSource>();

/** Consumers register while they run; a scrape asks JetStream for each one's backlog. */
export function registerConsumerLagSource(source: ConsumerLagSource): () => void {
  consumerLagSources.add(source);
  return () => consumerLagSources.delete(source);
}

new Gauge({
  name: 'binzip_consumer_pending_events',
  help: 'Events of a stream a durable consumer has not yet acknowledged (JetStream num_pending + num_ack_pending)',
  labelNames: ['stream', 'consumer'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    // NATS away: the consumer's series is left out of this scrape (absent, not a stale number).
    await Promise.all(
      [...consumerLagSources].map(async (source) => {
        const pending = await source.pending().catch(() => undefined);
        if (pending !== undefined) this.set({ stream: source.stream, consumer: source.consumer }, pending);
      }),
    );
  },
});

/** 1 while the outage watchdog's last check reached a dependency (`MongoDB`, `NATS`), 0 while it does not. */
export const dependencyUp = new Gauge({
  name: 'binzip_dependency_up',
  help: 'Whether the last check reached the dependency (1) or not (0), by dependency',
  labelNames: ['dependency'] as const,
  registers: [metricsRegistry],
});

/**
 * How often the event-loop delay is sampled. Each sample is a wake-up of the process: at 2 ms (500 a second) an idle
 * gateway spent about 10 ms of CPU a second on them (docs/benchmarks.md, issue 37 item 5); at 10 ms
 * a stall of 10 ms or more is still seen every time, and the p99 over a 15 s scrape rests on 1,500 samples.
 */
const EVENT_LOOP_RESOLUTION_MS = 10;
const QUANTILES = [0.5, 0.9, 0.99, 0.999, 1] as const;

/**
 * The tail's two causes inside a Node process, as distributions since the previous scrape (each scrape starts a
 * new window, as prom-client's own `nodejs_eventloop_lag_p99_seconds` does): how long a timer that was due waited
 * for the event loop (`monitorEventLoopDelay`, the sampling interval taken off, so an idle loop says about 0), and
 * how long each garbage collection stopped it (every pause, minor ones too). A request that arrives while the loop
 * is busy waits that long before any of its own work starts: the p99 of the first is what a p99 request waits.
 */
function startPauseHistograms(): void {
  const loop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  loop.enable();
  const gc = createHistogram();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc.record(Math.max(1, Math.round(entry.duration * 1e6)));
  });
  observer.observe({ entryTypes: ['gc'] });
  const resolutionNs = EVENT_LOOP_RESOLUTION_MS * 1e6;
  const quantilesOf = (histogram: RecordableHistogram | ReturnType<typeof monitorEventLoopDelay>, offsetNs: number) =>
    QUANTILES.map((q) => ({ q, seconds: histogram.count === 0 ? 0 : Math.max(0, (q === 1 ? histogram.max : histogram.percentile(q * 100)) - offsetNs) / 1e9 }));
  new Gauge({
    name: 'binzip_event_loop_delay_seconds',
    help: `Event-loop delay since the previous scrape, by quantile (sampled every ${EVENT_LOOP_RESOLUTION_MS} ms, the interval taken off; quantile 1 is the longest)`,
    labelNames: ['quantile'] as const,
    registers: [metricsRegistry],
    collect() {
      for (const { q, seconds } of quantilesOf(loop, resolutionNs)) this.set({ quantile: String(q) }, seconds);
      loop.reset();
    },
  });
  // Before the quantiles, which start the next window.
  new Gauge({
    name: 'binzip_gc_pauses',
    help: 'Garbage-collection pauses since the previous scrape',
    registers: [metricsRegistry],
    collect() {
      this.set(gc.count);
    },
  });
  new Gauge({
    name: 'binzip_gc_pause_seconds',
    help: 'Garbage-collection pauses since the previous scrape, by quantile (quantile 1 is the longest)',
    labelNames: ['quantile'] as const,
    registers: [metricsRegistry],
    collect() {
      for (const { q, seconds } of quantilesOf(gc, 0)) this.set({ quantile: String(q) }, seconds);
      gc.reset();
    },
  });
}

let defaultMetricsOn = false;
/**
 * Node's runtime metrics (heap, event loop lag, GC, handles) and the pause histograms (`startPauseHistograms`);
 * started once, by the first `/metrics`.
 */
function ensureDefaultMetrics(): void {
  if (defaultMetricsOn) return;
  defaultMetricsOn = true;
  collectDefaultMetrics({ register: metricsRegistry });
  startPauseHistograms();
}

const UNMATCHED_ROUTE = '(unmatched)';

/**
 * The route template a request matched, e.g. `/api/v1/boards/:boardId`, never the raw path with its ids
 * (one time series per route, not per id). Routers are mounted on fixed prefixes, so the template is the
 * request path's leading segments followed by the matched route's own segments. Taken when the response
 * ends: Express has reset `baseUrl` by then if an error left the router, but `req.route` stays.
 */
function routeTemplate(req: Request): string {
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath !== 'string') return UNMATCHED_ROUTE;
  const routeSegments = routePath.split('/').filter(Boolean);
  const pathSegments = req.originalUrl.split('?')[0].split('/').filter(Boolean);
  if (routeSegments.length > pathSegments.length) return UNMATCHED_ROUTE;
  return `/${[...pathSegments.slice(0, pathSegments.length - routeSegments.length), ...routeSegments].join('/')}`;
}

/** Records every request's duration by method, route template and status. Mount before the routes. */
export function observeRequestDurations(): RequestHandler {
  return (req, res, next) => {
    const end = httpRequestDuration.startTimer();
    res.on('finish', () => end({ method: req.method, route: routeTemplate(req), status_code: String(res.statusCode) }));
    next();
  };
}

/** `METRICS_ENABLED` and `METRICS_TOKEN`, spread into a process's config schema. */
export const metricsConfigShape = {
  /** `false` leaves `/metrics` out entirely (404). */
  METRICS_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** When set, `/metrics` answers only `Authorization: Bearer <token>` (Prometheus `authorization` config). */
  METRICS_TOKEN: z.preprocess((value) => (value === '' ? undefined : value), z.string().min(16).optional()),
};

export interface MetricsSettings {
  METRICS_ENABLED: boolean;
  METRICS_TOKEN?: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether an `Authorization` header is `Bearer <token>` (compared in constant time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  return authorization !== undefined && authorization.startsWith('Bearer ') && sameSecret(authorization.slice(7), token);
}

/** Serves the registry in Prometheus text format; 401 without the bearer token when one is configured. */
export function metricsHandler(settings: { token?: string } = {}): RequestHandler {
  ensureDefaultMetrics();
  return async (req, res) => {
    if (settings.token !== undefined) {
      if (!bearerMatches(req.headers.authorization, settings.token)) {
        res.status(401).set('WWW-Authenticate', 'Bearer').type('text/plain').send('metrics need the bearer token\n');
        return;
      }
    }
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  };
}
