import express, { type Express, type RequestHandler } from 'express';
import type { Connection } from 'mongoose';
import type { NatsConnection } from '@nats-io/nats-core';
import { errorEnvelope, successEnvelope } from '../core/wire';
import { ErrorCodes } from '../core/wire';
import { metricsHandler, type MetricsSettings } from '../core/telemetry';
import { isConnected } from '../store/mongo';

export type DependencyState = 'UP' | 'DOWN';

export interface ReadinessDependencies {
  connection: Connection;
  nats: NatsConnection;
  /** How long one probe may take before it counts as down. */
  timeoutMs?: number;
  /** True once the process has been told to stop (SIGTERM): it is then not ready, whatever its stores say. */
  draining?: () => boolean;
}

/** The longest `/ready` waits for the broker's PONG (it only says `DEGRADED`). */
const NATS_CHECK_MS = 500;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Asks each store for a round trip: a connection object that believes it is open is not enough (the
 * MongoDB driver notices a dead server only at its next heartbeat).
 */
async function checkDependencies(deps: ReadinessDependencies): Promise<{ mongodb: DependencyState; nats: DependencyState }> {
  const timeoutMs = deps.timeoutMs ?? 2_000;
  const mongo = async (): Promise<DependencyState> => {
    if (!isConnected(deps.connection) || !deps.connection.db) return 'DOWN';
    return within(deps.connection.db.command({ ping: 1 }), timeoutMs).then(
      () => 'UP',
      () => 'DOWN',
    );
  };
  // rtt() throws at once while the client is disconnected or closed; otherwise it is one PING/PONG. The broker
  // does not decide readiness, so its answer is not waited for long: a node that froze with the client on it
  // leaves the PING unanswered, and waiting the whole bound made /ready miss the gateway's probe timeout on every
  // replica connected to that node at once (bench:faults, a NATS node frozen).
  const nats = async (): Promise<DependencyState> =>
    within(deps.nats.rtt(), Math.min(timeoutMs, NATS_CHECK_MS)).then(
      () => 'UP',
      () => 'DOWN',
    );
  const [mongodb, natsState] = await Promise.all([mongo(), nats()]);
  return { mongodb, nats: natsState };
}

/** `UP`: store and broker answer; `DEGRADED`: only the broker is away (still ready); `DOWN`: the store is away. */
export type ReadinessStatus = 'UP' | 'DEGRADED' | 'DOWN';

/**
 * `GET /ready`: decided by MongoDB alone. Reads never need NATS and writes leave their events in the outbox, so
 * a broker outage only delays events: the process stays ready (200) and says `DEGRADED`, naming NATS. Without
 * its store it can serve nothing: 503 `DOWN`. A process that is shutting down (`draining`) answers 503 too, so
 * the load balancer stops sending before it stops serving. `/health` stays the liveness probe.
 */
function readinessHandler(service: string, deps: ReadinessDependencies): RequestHandler {
  return async (_req, res) => {
    const checks = await checkDependencies(deps);
    const draining = deps.draining?.() ?? false;
    const ready = checks.mongodb === 'UP' && !draining;
    const status: ReadinessStatus = ready ? (checks.nats === 'UP' ? 'UP' : 'DEGRADED') : 'DOWN';
    const body = { status, service, checks, ...(draining ? { draining: true } : {}) };
    res.status(ready ? 200 : 503).json(ready ? successEnvelope(body) : { ...errorEnvelope('C0000', ErrorCodes.C0000.message), data: body });
  };
}

/**
 * A service's `/metrics` answers only the bearer of `METRICS_TOKEN` (401 otherwise), and nobody without one
 * (403 C0003), as the gateway's does (issue 34): the series name routes, traffic and the runtime, and a service's
 * port is reachable by every pod the network lets in.
 */
function serviceMetrics(token: string | undefined): RequestHandler {
  if (token !== undefined) return metricsHandler({ token });
  return (_req, res) => {
    res.status(403).json(errorEnvelope('C0003', ErrorCodes.C0003.message));
  };
}

/**
 * The operator's endpoints every service process answers beside its API: `/ready` and, unless disabled,
 * `/metrics`. Wraps the service app so they need neither the API's middleware nor its dependencies.
 */
export function withOperatorEndpoints(
  app: Express,
  options: { service: string; readiness: ReadinessDependencies; metrics: MetricsSettings; internal?: RequestHandler },
): Express {
  const outer = express();
  outer.disable('x-powered-by');
  const draining = options.readiness.draining;
  if (draining) {
    // While draining, every answer closes its connection: a client's pooled keep-alive connection (the gateway's)
    // is never reused for a request that would meet the closing listener.
    outer.use((_req, res, next) => {
      if (draining()) res.setHeader('Connection', 'close');
      next();
    });
  }
  outer.get('/ready', readinessHandler(options.service, options.readiness));
  if (options.metrics.METRICS_ENABLED) outer.get('/metrics', serviceMetrics(options.metrics.METRICS_TOKEN));
  if (options.internal) outer.use(options.internal);
  outer.use(app);
  return outer;
}
