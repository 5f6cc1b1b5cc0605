import http from 'node:http';
import type { RequestHandler } from 'express';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { errorEnvelope, GatewayFaults, type Logger } from '@binzip/shared';
import { serviceFor, type Pools } from '../domain/upstreams';

/** Per-request proxy bookkeeping, kept off the request's own fields. */
interface ProxyState {
  tried: Set<string>;
  target?: string;
  timedOut: boolean;
  retrying: boolean;
}

const states = new WeakMap<http.IncomingMessage, ProxyState>();

function stateOf(req: http.IncomingMessage): ProxyState {
  let state = states.get(req);
  if (!state) {
    state = { tried: new Set(), timedOut: false, retrying: false };
    states.set(req, state);
  }
  return state;
}

/** A request whose body is empty can be sent again to another instance after a refused connection. */
function hasNoBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

function sendFault(res: http.ServerResponse, fault: { status: number; code: string; message: string }): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorEnvelope(fault.code, fault.message));
  res.writeHead(fault.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface ProxyOptions {
  pools: Pools;
  timeoutMs: number;
  logger: Logger;
}

/**
 * Streams requests to the owning service untouched (bodies are never parsed or rewritten). Faults become
 * envelopes: refused -> 503 (after trying the other instances when the request has no body), upstream
 * silent past the timeout -> 504, anything else mid-flight -> 502.
 */
export function proxyRouter(options: ProxyOptions): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 1_000 });
  const { pools, logger } = options;

  const faults: Plugin = (proxyServer) => {
    proxyServer.on('proxyReq', (proxyReq, req) => {
      const state = stateOf(req);
      proxyReq.setTimeout(options.timeoutMs, () => {
        state.timedOut = true;
        proxyReq.destroy(new Error('upstream timeout'));
      });
      // A retried request's stream has already ended, so nothing would end the new upstream request.
      if (state.retrying) proxyReq.end();
    });
    proxyServer.on('error', (err: NodeJS.ErrnoException, req, res) => {
      const response = res as http.ServerResponse;
      const state = stateOf(req);
      const service = serviceFor(req.url ?? '');
      if (state.timedOut) {
        logger.warn('upstream timeout', { service, target: state.target });
        sendFault(response, GatewayFaults.timeout);
        return;
      }
      if (err.code === 'ECONNREFUSED' && service && state.target) {
        pools[service].markDown(state.target);
        logger.warn('upstream refused', { service, target: state.target });
        const next = hasNoBody(req) && !response.headersSent ? pools[service].pick(state.tried) : undefined;
        if (next) {
          state.retrying = true;
          void middleware(req as Parameters<RequestHandler>[0], response as Parameters<RequestHandler>[1], () =>
            sendFault(response, GatewayFaults.unavailable),
          );
          return;
        }
        sendFault(response, GatewayFaults.unavailable);
        return;
      }
      logger.warn('upstream fault', { service, target: state.target, error: err.message, code: err.code });
      sendFault(response, { status: 502, code: 'C0000', message: GatewayFaults.unavailable.message });
    });
  };

  const middleware = createProxyMiddleware({
    router: (req) => {
      const service = serviceFor(req.url ?? '');
      if (!service) throw new Error(`no route for ${req.url}`);
      const state = stateOf(req);
      const target = pools[service].pick(state.tried);
      if (!target) throw new Error(`no upstream left for ${service}`);
      state.tried.add(target);
      state.target = target;
      return target;
    },
    pathFilter: (path) => serviceFor(path) !== undefined,
    agent,
    xfwd: true,
    changeOrigin: false,
    ejectPlugins: true,
    plugins: [faults],
  });
  return middleware;
}
