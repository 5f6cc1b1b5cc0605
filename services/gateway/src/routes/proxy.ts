import http from 'node:http';
import type { Request, RequestHandler } from 'express';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { errorEnvelope, GatewayFaults, type Logger } from '@binzip/shared';
import { serviceFor, type Pools } from '../domain/upstreams';

/** Per-request proxy bookkeeping, kept off the request's own fields. */
interface ProxyState {
  tried: Set<string>;
  target?: string;
  timedOut: boolean;
  retrying: boolean;
  /** Forwarding headers rewritten (once: a retry must not append the client address again). */
  prepared: boolean;
  /** A chunked body passed the limit: the 413 is already answered. */
  tooLarge: boolean;
  proxyReq?: http.ClientRequest;
}

const states = new WeakMap<http.IncomingMessage, ProxyState>();

function stateOf(req: http.IncomingMessage): ProxyState {
  let state = states.get(req);
  if (!state) {
    state = { tried: new Set(), timedOut: false, retrying: false, prepared: false, tooLarge: false };
    states.set(req, state);
  }
  return state;
}

/** A request whose body is empty can be sent again to another instance after a refused connection. */
function hasNoBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

function sendFault(res: http.ServerResponse, fault: { status: number; code: string; message: string }, closeConnection = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorEnvelope(fault.code, fault.message));
  res.writeHead(fault.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(closeConnection ? { connection: 'close' } : {}),
  });
  res.end(body);
}

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) describe one connection and are not forwarded in either direction.
 * `transfer-encoding` stays: it frames the body streamed on. Names a peer lists in `Connection` go too,
 * except the ones that frame the message or that the gateway itself sets.
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade'];
const NEVER_STRIPPED = new Set(['host', 'content-length', 'transfer-encoding', 'x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']);

export function stripHopByHop(headers: http.IncomingHttpHeaders): void {
  const connection = headers.connection;
  const listed = (Array.isArray(connection) ? connection.join(',') : (connection ?? '')).split(',').map((name) => name.trim().toLowerCase());
  for (const name of [...HOP_BY_HOP, ...listed]) if (name && !NEVER_STRIPPED.has(name)) delete headers[name];
}

/**
 * The forwarding headers say what the gateway knows, judged by its own `trust proxy`: the client address
 * chain up to the first address it does not trust (a client's own X-Forwarded-For claims are dropped
 * otherwise), then the peer. Set, never appended, so a retried request carries them once.
 */
function prepareHeaders(req: Request, state: ProxyState): void {
  if (state.prepared) return;
  state.prepared = true;
  const chain = [...req.ips, req.socket.remoteAddress].filter((ip): ip is string => Boolean(ip));
  const proto = req.protocol;
  const host = req.host;
  stripHopByHop(req.headers);
  req.headers['x-forwarded-for'] = chain.join(', ');
  req.headers['x-forwarded-proto'] = proto;
  if (host) req.headers['x-forwarded-host'] = host;
  else delete req.headers['x-forwarded-host'];
  delete req.headers['x-forwarded-port'];
}

export interface ProxyOptions {
  pools: Pools;
  timeoutMs: number;
  logger: Logger;
  /** Largest body forwarded; declared lengths are checked before the proxy, chunked bodies while streaming. */
  bodyLimitBytes: number;
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
    proxyServer.on('start', (req, res) => {
      // A chunked body declares no length: count it as it streams (the listener is added in the same tick as
      // the proxy's pipe, so no chunk is missed) and answer 413 once it passes the limit.
      if (req.headers['transfer-encoding'] === undefined) return;
      const state = stateOf(req);
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= options.bodyLimitBytes || state.tooLarge) return;
        state.tooLarge = true;
        req.off('data', count);
        req.unpipe();
        state.proxyReq?.destroy();
        sendFault(res as http.ServerResponse, GatewayFaults.tooLarge, true);
      };
      req.on('data', count);
    });
    proxyServer.on('proxyReq', (proxyReq, req, res) => {
      const state = stateOf(req);
      state.proxyReq = proxyReq;
      if (state.tooLarge) {
        proxyReq.destroy();
        return;
      }
      proxyReq.setTimeout(options.timeoutMs, () => {
        state.timedOut = true;
        proxyReq.destroy(new Error('upstream timeout'));
      });
      // A client that goes away takes its upstream request with it, instead of holding it until the timeout.
      res.on('close', () => {
        if (!res.writableFinished) proxyReq.destroy();
      });
      // A retried request's stream has already ended, so nothing would end the new upstream request.
      if (state.retrying) proxyReq.end();
    });
    proxyServer.on('proxyRes', (proxyRes, _req, res) => {
      // The upstream's connection management is not the client's: keep-alive with the client is decided here.
      stripHopByHop(proxyRes.headers);
      proxyRes.headers.connection = (res as http.ServerResponse).shouldKeepAlive ? 'keep-alive' : 'close';
    });
    proxyServer.on('error', (err: NodeJS.ErrnoException, req, res) => {
      const response = res as http.ServerResponse;
      const state = stateOf(req);
      const service = serviceFor(req.url ?? '');
      if (state.tooLarge) return;
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
    xfwd: false,
    changeOrigin: false,
    ejectPlugins: true,
    plugins: [faults],
  });
  return (req, res, next) => {
    prepareHeaders(req, stateOf(req));
    return middleware(req, res, next);
  };
}
