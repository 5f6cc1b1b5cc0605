import http from 'node:http';
import type { Url } from 'node:url';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { GatewayFaults, type Logger } from '@binzip/shared/core';
import { SERVICE_NAMES, type Pools, type ServiceName } from './upstreams';
import { sendEnvelope } from '../edge';
import { upstreamFaults, upstreamRetries } from '../metrics';

/** Per-request proxy bookkeeping, kept off the request's own fields. */
interface ProxyState {
  tried: Set<string>;
  target?: string;
  timedOut: boolean;
  retrying: boolean;
  /** The request's body, read whole by the gateway before an upstream connection was taken for it. */
  body?: Buffer;
  /** The upstream's answer has been passed on in full: later faults of the upstream request are not the client's. */
  answered: boolean;
  proxyReq?: http.ClientRequest;
}

/** Kept on the request under a symbol (a WeakMap entry per request costs the garbage collector more). */
const STATE = Symbol('proxy state');
type WithState = http.IncomingMessage & { [STATE]?: ProxyState };

function stateOf(req: http.IncomingMessage): ProxyState {
  const holder = req as WithState;
  return (holder[STATE] ??= { tried: new Set(), timedOut: false, retrying: false, answered: false });
}

/**
 * Targets handed to http-proxy already parsed, in the legacy `url.parse` shape it reads: given a string, it
 * would run `url.parse` (deprecated, and a warning on Node 24) on it for every request. Built from the WHATWG
 * parser instead. Instances are few (re-resolved addresses included), so this never grows far.
 */
const parsedTargets = new Map<string, Partial<Url>>();
function parsedTarget(url: string): Partial<Url> {
  let parsed = parsedTargets.get(url);
  if (parsed === undefined) {
    const { protocol, hostname, port, host } = new URL(url);
    // http.request wants an IPv6 address without the brackets the URL form needs.
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    parsed = { protocol, host, hostname: bare, port: port || (protocol === 'https:' ? '443' : '80'), path: '/', pathname: '/' };
    if (parsedTargets.size >= 1_000) parsedTargets.clear();
    parsedTargets.set(url, parsed);
  }
  return parsed;
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
  if (connection !== undefined) {
    const listed = (Array.isArray(connection) ? connection.join(',') : connection).split(',');
    for (const name of listed) {
      const key = name.trim().toLowerCase();
      if (key && !NEVER_STRIPPED.has(key)) delete headers[key];
    }
  }
  for (const name of HOP_BY_HOP) if (headers[name] !== undefined) delete headers[name];
}

export interface ProxyOptions {
  pools: Pools;
  timeoutMs: number;
  logger: Logger;
  /** A pooled upstream connection idle this long is closed (`UPSTREAM_IDLE_SOCKET_MS`). */
  idleSocketMs: number;
}

/** Forwards a request whose body (if any) the gateway has already read whole (`bodies.ts`). */
export type ProxyHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer | undefined) => void;

/**
 * One pre-built http-proxy-middleware instance per service, called straight from the gateway's http.Server
 * (no Express routing in front). Bodies arrive already read (never parsed or rewritten) and are sent in one go.
 * Faults become envelopes: refused -> 503 (after trying the other instances),
 * upstream silent past the timeout -> 504, anything else mid-flight -> 502.
 */
export function createServiceProxies(options: ProxyOptions): Record<ServiceName, ProxyHandler> {
  // One keep-alive agent for every upstream: sockets are pooled per instance address, so each replica keeps its own.
  // An idle pooled socket is closed here before the services' own 65 s keep-alive timeout closes it (the agent's
  // `timeout` applies to free sockets too), so a request is never written onto a socket the service is closing at
  // that moment (a 502). In-flight requests are bounded by the shorter upstream timeout first.
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: 256,
    maxFreeSockets: 64,
    keepAliveMsecs: 1_000,
    scheduling: 'lifo',
    timeout: options.idleSocketMs,
  });
  return Object.fromEntries(SERVICE_NAMES.map((service) => [service, serviceProxy(service, agent, options)])) as Record<ServiceName, ProxyHandler>;
}

function serviceProxy(service: ServiceName, agent: http.Agent, options: ProxyOptions): ProxyHandler {
  const { logger } = options;
  const pool = options.pools[service];

  /** The router found no instance left to try. */
  const noUpstream = (res: http.ServerResponse) => {
    upstreamFaults.inc({ service, kind: 'refused' });
    sendEnvelope(res, GatewayFaults.unavailable);
  };

  const faults: Plugin = (proxyServer) => {
    proxyServer.on('proxyReq', (proxyReq, req, res) => {
      const state = stateOf(req);
      state.proxyReq = proxyReq;
      proxyReq.setTimeout(options.timeoutMs, () => {
        state.timedOut = true;
        proxyReq.destroy(new Error('upstream timeout'));
      });
      // A client that goes away takes its upstream request with it, instead of holding it until the timeout.
      res.on('close', () => {
        if (!res.writableFinished) proxyReq.destroy();
      });
      // The client's stream has already ended (its body was read whole): the body is sent from here, with its
      // length (a chunked body is sent with the length it turned out to have), on a first try and on a retry.
      if (state.body !== undefined) {
        proxyReq.removeHeader('transfer-encoding');
        proxyReq.setHeader('content-length', state.body.length);
        proxyReq.end(state.body);
      } else if (state.retrying) proxyReq.end();
    });
    proxyServer.on('proxyRes', (proxyRes, req, res) => {
      // The upstream's connection management is not the client's: keep-alive with the client is decided here.
      stripHopByHop(proxyRes.headers);
      proxyRes.headers.connection = res.shouldKeepAlive ? 'keep-alive' : 'close';
      proxyRes.once('end', () => {
        const state = stateOf(req);
        state.answered = true;
        // The upstream answered before reading the whole body (a 400 or 401 at once): that upstream request can
        // never complete, so it goes, and the rest of the client's body is drained by the edge (see `edge.ts`).
        if (!req.complete) {
          req.unpipe();
          state.proxyReq?.destroy();
        }
      });
    });
    proxyServer.on('error', (err: NodeJS.ErrnoException, req, res) => {
      const response = res as http.ServerResponse;
      const state = stateOf(req);
      if (state.answered) return;
      if (state.timedOut) {
        logger.warn('upstream timeout', { service, target: state.target, requestId: req.headers['x-request-id'] });
        upstreamFaults.inc({ service, kind: 'timeout' });
        sendEnvelope(response, GatewayFaults.timeout);
        return;
      }
      if (err.code === 'ECONNREFUSED' && state.target) {
        pool.markDown(state.target);
        logger.warn('upstream refused', { service, target: state.target, requestId: req.headers['x-request-id'] });
        // Every body is held whole by now, so any request can be sent again to another instance.
        const next = !response.headersSent ? pool.pick(state.tried) : undefined;
        if (next) {
          state.retrying = true;
          upstreamRetries.inc({ service });
          void middleware(req, response, () => noUpstream(response));
          return;
        }
        upstreamFaults.inc({ service, kind: 'refused' });
        sendEnvelope(response, GatewayFaults.unavailable);
        return;
      }
      logger.warn('upstream fault', { service, target: state.target, error: err.message, code: err.code, requestId: req.headers['x-request-id'] });
      upstreamFaults.inc({ service, kind: 'error' });
      sendEnvelope(response, { status: 502, code: 'C0000', message: GatewayFaults.unavailable.message });
    });
  };

  const middleware = createProxyMiddleware<http.IncomingMessage, http.ServerResponse>({
    router: (req) => {
      const state = stateOf(req);
      const target = pool.pick(state.tried);
      if (!target) throw new Error(`no upstream left for ${service}`);
      state.tried.add(target);
      state.target = target;
      return parsedTarget(target);
    },
    agent,
    // The request target is already the canonical origin form (`canonicalTarget`): forwarded as it is, rather
    // than run through the legacy `url.parse` again for every request (http-proxy does that unless `toProxy`).
    toProxy: true,
    xfwd: false,
    changeOrigin: false,
    ejectPlugins: true,
    plugins: [faults],
  });
  return (req, res, body) => {
    if (body !== undefined) stateOf(req).body = body;
    void middleware(req, res, () => noUpstream(res));
  };
}
