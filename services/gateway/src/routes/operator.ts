import type http from 'node:http';
import { Router, type RequestHandler } from 'express';
import { bearerMatches, ErrorCodes, errorEnvelope, GatewayFaults, metricsHandler, successEnvelope, type Logger } from '@binzip/shared/core';
import type { GatewayConfig } from '../config';
import { clientAddress, compileTrust, type TrustFunction } from '../proxy/trust';
import { SERVICE_NAMES, probePools, type Pools } from '../proxy/upstreams';
import { sendEnvelope } from '../edge';

/**
 * Who is an operator on the gateway's public port: the bearer of `METRICS_TOKEN`, or a client whose address
 * (as `TRUST_PROXY` judges it, the same address the flood ceilings count) is in `OPERATOR_ADDRESSES`. Nobody by
 * default: the public port faces the internet.
 */
export function operatorCheck(
  config: Pick<GatewayConfig, 'METRICS_TOKEN' | 'OPERATOR_ADDRESSES'>,
  trust: TrustFunction,
): (req: http.IncomingMessage) => boolean {
  const trusted = config.OPERATOR_ADDRESSES.length > 0 ? compileTrust(config.OPERATOR_ADDRESSES.join(',')) : undefined;
  const token = config.METRICS_TOKEN;
  return (req) => (token !== undefined && bearerMatches(req.headers.authorization, token)) || (trusted !== undefined && trusted(clientAddress(req, trust), 0));
}

const notOperator = { status: 403, code: 'C0003', message: ErrorCodes.C0003.message };

export interface OperatorDeps {
  config: GatewayConfig;
  pools: Pools;
  trust: TrustFunction;
  logger: Logger;
  /** True once the gateway has been told to stop (SIGTERM): `/ready` answers 503 while it drains. */
  draining?: () => boolean;
}

/**
 * `/ready` and `/metrics` of the gateway. `/ready` tells anyone (a load balancer) READY or NOT_READY, overall and
 * per service; the instances' addresses and which of them answered are for operators only. `/metrics` is for
 * operators only (403 C0003 otherwise; `METRICS_ENABLED=false` leaves it out).
 */
export function operatorRoutes(deps: OperatorDeps): Router {
  const { config, pools } = deps;
  const isOperator = operatorCheck(config, deps.trust);
  const router = Router();

  /** Ready when every service has at least one instance ready (see `probe`) and the gateway is not draining. */
  router.get('/ready', async (req, res) => {
    const results = await probePools(pools, 2_000);
    const serviceReady = (name: (typeof SERVICE_NAMES)[number]) => pools[name].instances.some((url) => results[url]);
    const services = Object.fromEntries(SERVICE_NAMES.map((name) => [name, serviceReady(name) ? 'READY' : 'NOT_READY']));
    const draining = deps.draining?.() ?? false;
    const ready = !draining && SERVICE_NAMES.every(serviceReady);
    const data = {
      status: ready ? 'READY' : 'NOT_READY',
      services,
      ...(draining ? { draining: true } : {}),
      ...(isOperator(req)
        ? { instances: Object.fromEntries(SERVICE_NAMES.map((name) => [name, pools[name].instances.map((url) => ({ url, up: results[url] ?? false }))])) }
        : {}),
    };
    if (ready) res.json(successEnvelope(data));
    else res.status(503).json({ ...errorEnvelope(GatewayFaults.unavailable.code, GatewayFaults.unavailable.message), data });
  });

  if (config.METRICS_ENABLED) {
    // Prometheus: the proxied requests' histogram and upstream faults (metrics.ts), the own pages', Node's runtime.
    const metrics = metricsHandler();
    const guarded: RequestHandler = (req, res, next) => {
      if (isOperator(req)) return metrics(req, res, next);
      sendEnvelope(res, notOperator);
    };
    router.get('/metrics', guarded);
  }
  return router;
}
