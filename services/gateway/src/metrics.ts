import { Counter, Histogram, metricsRegistry } from '@binzip/shared/core';
import type { ServiceName } from './proxy/upstreams';

/**
 * The gateway's own series, in the process's one registry (served by `/metrics` with Node's runtime metrics
 * and the own pages' `http_request_duration_seconds`). Proxied requests never enter the Express app, so the
 * hot path records them here, by upstream service, method and status — one `observe` with a labels object
 * made once per combination, no per-request allocation of labels.
 */
export const proxiedRequestDuration = new Histogram({
  name: 'binzip_gateway_request_duration_seconds',
  help: 'Requests the gateway proxied (as the client saw them, gateway answers such as 503 included), by upstream service, method and status',
  labelNames: ['service', 'method', 'status_code'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Upstream faults: `refused` (503 after every instance was tried), `overloaded` (503, every instance's queue full), `timeout` (504), `error` (502). */
export const upstreamFaults = new Counter({
  name: 'binzip_gateway_upstream_faults_total',
  help: 'Proxied requests the gateway answered itself because the upstream failed, by service and kind (refused 503, overloaded 503 with every queue full, timeout 504, error 502)',
  labelNames: ['service', 'kind'] as const,
  registers: [metricsRegistry],
});

/** A bodiless request sent again to another instance after a refused connection. */
export const upstreamRetries = new Counter({
  name: 'binzip_gateway_upstream_retries_total',
  help: 'Bodiless requests retried on another instance after a refused connection, by service',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
});

type Labels = { service: ServiceName; method: string; status_code: string };
const labelCache = new Map<string, Labels>();

/** Records one proxied request; methods outside the usual few share `OTHER`, so clients cannot add series. */
export function observeProxied(service: ServiceName, method: string | undefined, status: number, seconds: number): void {
  const verb = method !== undefined && KNOWN_METHODS.has(method) ? method : 'OTHER';
  const key = `${service} ${verb} ${status}`;
  let labels = labelCache.get(key);
  if (labels === undefined) {
    labels = { service, method: verb, status_code: String(status) };
    labelCache.set(key, labels);
  }
  proxiedRequestDuration.observe(labels, seconds);
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
