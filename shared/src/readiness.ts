import express, { type Express, type RequestHandler } from 'express';
import type { Connection } from 'mongoose';
import type { NatsConnection } from 'nats';
import { errorEnvelope, successEnvelope } from './envelope';
import { ErrorCodes } from './errors';
import { metricsHandler, type MetricsSettings } from './metrics';
import { isConnected } from './mongo';

export type DependencyState = 'UP' | 'DOWN';

export interface ReadinessDependencies {
  connection: Connection;
  nats: NatsConnection;
  /** How long one probe may take before it counts as down. */
  timeoutMs?: number;
}

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
  // rtt() throws at once while the client is disconnected or closed; otherwise it is one PING/PONG.
  const nats = async (): Promise<DependencyState> =>
    within(deps.nats.rtt(), timeoutMs).then(
      () => 'UP',
      () => 'DOWN',
    );
  const [mongodb, natsState] = await Promise.all([mongo(), nats()]);
  return { mongodb, nats: natsState };
}

/**
 * `GET /ready`: 200 when MongoDB and NATS both answer, 503 otherwise; the body names each. `/health` stays
 * the liveness probe (a process waiting for its stores to come back should not be restarted for it).
 */
function readinessHandler(service: string, deps: ReadinessDependencies): RequestHandler {
  return async (_req, res) => {
    const checks = await checkDependencies(deps);
    const ready = checks.mongodb === 'UP' && checks.nats === 'UP';
    const body = { status: ready ? 'UP' : 'DOWN', service, checks };
    res.status(ready ? 200 : 503).json(ready ? successEnvelope(body) : { ...errorEnvelope('C0000', ErrorCodes.C0000.message), data: body });
  };
}

/**
 * The operator's endpoints every service process answers beside its API: `/ready` and, unless disabled,
 * `/metrics`. Wraps the service app so they need neither the API's middleware nor its dependencies.
 */
export function withOperatorEndpoints(app: Express, options: { service: string; readiness: ReadinessDependencies; metrics: MetricsSettings }): Express {
  const outer = express();
  outer.disable('x-powered-by');
  outer.get('/ready', readinessHandler(options.service, options.readiness));
  if (options.metrics.METRICS_ENABLED) outer.get('/metrics', metricsHandler({ token: options.metrics.METRICS_TOKEN }));
  outer.use(app);
  return outer;
}
