import { timingSafeEqual } from 'node:crypto';
import { createHistogram, monitorEventLoopDelay, PerformanceObserver, type RecordableHistogram } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { z } from 'zod';

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
