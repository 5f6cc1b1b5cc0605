import http from 'node:http';
import {
  CACHE_CHANGE_ID_HEADER,
  CACHE_CHANGED_HEADER,
  CACHE_HEARD_HEADER,
  CACHE_OFFER_HEADER,
  CHANGES_HEARD_MS,
  GatewayFaults,
  readChanged,
  readOffer,
  readTextHeader,
  type Logger,
} from '@binzip/shared/core';
import { ResponseCache, type AnnouncementHost } from '@binzip/shared/response-cache';
import { SERVICE_NAMES, type Pools, type ServiceName } from './upstreams';
import { LONG_LIVED_ROUTES } from './declared-access';
import { guarded, sendEnvelope, upstreamFaults, upstreamRetries, type Fault } from '../edge';

/** Where a target URL sends a request (kept parsed: instances are few, re-resolved addresses included). */
interface Target {
  protocol: string;
  hostname: string;
  port: number;
}
const parsedTargets = new Map<string, Target>();
function parsedTarget(url: string): Target {
  let parsed = parsedTargets.get(url);
  if (parsed === undefined) {
    const { protocol, hostname, port } = new URL(url);
    // http.request wants an IPv6 address without the brackets the URL form needs.
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    parsed = { protocol, hostname: bare, port: Number(port || (protocol === 'https:' ? 443 : 80)) };
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
  /** The upstream must start answering within this time of the request being handed to it (its queue wait included), else 504. */
  timeoutMs: number;
  logger: Logger;
  /** A pooled upstream connection idle this long is closed (`UPSTREAM_IDLE_SOCKET_MS`). */
  idleSocketMs: number;
  /** Connections to one instance at once (`UPSTREAM_MAX_SOCKETS`). */
  maxSockets: number;
  /** Requests that may wait for a connection to one instance beyond those (`UPSTREAM_MAX_QUEUED`); more get 503 with Retry-After. */
  maxQueued: number;
  /** `path`: an anonymous read goes to the replica its path hashes to (`UPSTREAM_READ_AFFINITY`). */
  readAffinity?: 'off' | 'path';
  /** The gateway's memory of the services' answers, once it hears their announcements (`GatewayAnswers`). */
  answers?: () => GatewayAnswers | undefined;
}

/**
 * A body streamed to the service as it arrives (the picture uploads, only once their token is verified): never
 * held whole here. `refuse` answers for the gateway (413 past `limit`, 408 past `deadlineMs`); `done` is called
 * once when the client's body has ended or been given up.
 */
export interface StreamedBody {
  limit: number;
  /** Called once an upstream request has been made for it, before its first byte is read (`Expect: 100-continue`'s 100). */
  start: () => void;
  deadlineMs: number;
  refuse: (fault: Fault) => void;
  done: () => void;
}

/** What goes upstream with a request: nothing, a body the gateway has read whole (`bodies.ts`), or a streamed one. */
export type UpstreamBody = Buffer | StreamedBody | undefined;

export type ProxyHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: UpstreamBody) => void;

/** Every instance of a service has as many requests queued as it may: the client may retry a moment later. */
export const RETRY_AFTER_SECONDS = '1';

/**
 * One forwarder per service, called straight from the gateway's http.Server (no Express routing in front): a
 * plain `http.Request` per request on one keep-alive agent, so the gateway holds the upstream request from the
 * start (its timeout, its clean-up when the client goes away, its body) instead of waiting for a library's event
 * (issue 34: http-proxy's `proxyReq` event came after the headers were sent when the request had waited for a
 * socket, and never came at all for `Expect: 100-continue`).
 *
 * Faults become envelopes: refused -> 503 (after trying the other instances, for a body held whole),
 * every instance's queue full -> 503 with Retry-After, upstream silent past the timeout -> 504, anything else
 * before the answer -> 502.
 */
export function createServiceProxies(options: ProxyOptions): Record<ServiceName, ProxyHandler> {
  // One keep-alive agent for every upstream: sockets are pooled per instance address, so each replica keeps its own.
  // An idle pooled socket is closed here before the services' own 65 s keep-alive timeout closes it (the agent's
  // `timeout` applies to free sockets too), so a request is never written onto a socket the service is closing at
  // that moment (a 502). The agent's own wait queue has no bound: the forwarder keeps it to `maxQueued`.
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: options.maxSockets,
    maxFreeSockets: Math.min(64, options.maxSockets),
    keepAliveMsecs: 1_000,
    scheduling: 'lifo',
    timeout: options.idleSocketMs,
  });
  // Long-lived answers (the notifications stream, issue 38) each hold their own connection for as long as the
  // client stays: on the pooled agent they would take its sockets from ordinary requests and count against
  // `maxQueued`. They get an agent of their own without pooling or a socket ceiling (each stream costs the gateway
  // two descriptors, one per side: the process's open-file limit is their bound).
  const streamAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  return Object.fromEntries(SERVICE_NAMES.map((service) => [service, serviceProxy(service, agent, options, streamAgent)])) as Record<ServiceName, ProxyHandler>;
}

/** `METHOD /path` (lower-case path) of every route the services declare as a long-lived stream (declared-access.ts). */
const LONG_LIVED = new Set(LONG_LIVED_ROUTES.map(([method, path]) => `${method} ${path.toLowerCase()}`));

/** A request for a route answered by a long-lived stream (Server-Sent Events), as the services declare them. */
export function isLongLivedStream(req: http.IncomingMessage): boolean {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return LONG_LIVED.has(`${req.method} ${(query === -1 ? url : url.slice(0, query)).toLowerCase()}`);
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const isStreamed = (body: UpstreamBody): body is StreamedBody => body !== undefined && !Buffer.isBuffer(body);

function serviceProxy(service: ServiceName, agent: http.Agent, options: ProxyOptions, streamAgent: http.Agent): ProxyHandler {
  const { logger } = options;
  const pool = options.pools[service];
  /** Requests handed to each instance and not yet over (on a connection or waiting for one in the agent). */
  const inFlight = new Map<string, number>();
  const capacity = options.maxSockets + options.maxQueued;

  const hold = (target: string): (() => void) => {
    inFlight.set(target, (inFlight.get(target) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (inFlight.get(target) ?? 1) - 1;
      if (left > 0) inFlight.set(target, left);
      else inFlight.delete(target);
    };
  };

  /**
   * Idempotent requests waiting for an instance's first byte, by instance: when the instance is marked down (its
   * readiness probe failed: frozen, lost its store, draining; or it refused a connection) they go to another one at
   * once instead of waiting for the answer timeout. One listener per service, not one per request.
   */
  const waiting = new Map<string, Set<() => void>>();
  pool.onDown((url) => {
    const moved = waiting.get(url);
    if (!moved) return;
    waiting.delete(url);
    for (const move of moved) move();
  });
  const watch = (target: string, move: () => void): (() => void) => {
    let set = waiting.get(target);
    if (!set) waiting.set(target, (set = new Set()));
    set.add(move);
    return () => {
      const current = waiting.get(target);
      if (!current) return;
      current.delete(move);
      if (current.size === 0) waiting.delete(target);
    };
  };

  const loadOf = (target: string): number => inFlight.get(target) ?? 0;

  /**
   * The next instance in turn with room (or the one an `affinity` key hashes to unless it holds more than its
   * bounded share of the requests in flight, then the next by that hash), skipping those tried; `full` when every
   * one left is at capacity.
   */
  const choose = (tried: ReadonlySet<string>, affinity?: string): { target: string } | { full: boolean } => {
    const skipped = new Set(tried);
    let full = false;
    for (;;) {
      const target = pool.pick(skipped, affinity, loadOf);
      if (target === undefined) return { full };
      if (loadOf(target) < capacity) return { target };
      full = true;
      skipped.add(target);
    }
  };

  /** The next instance in turn, whatever its load (streams). */
  const pickAny = (tried: ReadonlySet<string>): { target: string } | { full: boolean } => {
    const target = pool.pick(new Set(tried));
    return target === undefined ? { full: false } : { target };
  };

  /** The gateway's memory as the request was sent on, and its service's last change then (`GatewayAnswers.began`). */
  interface Memory {
    answers: GatewayAnswers;
    began: number;
  }

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: UpstreamBody, tried: Set<string>, memory: Memory | undefined): void => {
    const requestId = req.headers['x-request-id'];
    // A stream is not held against an instance's room (`inFlight`): it would fill it for as long as it lasts.
    const longLived = isLongLivedStream(req);
    // With `readAffinity: 'path'`, an anonymous read (the same answer for everyone, kept by the replica's response
    // cache) goes to the same replica for the same path, so it is computed once across the replicas. A member's
    // reads spread in turn (a hot member path, the inbox, would otherwise land on one replica).
    const affinity =
      options.readAffinity === 'path' && !longLived && (req.method === 'GET' || req.method === 'HEAD') && req.headers.authorization === undefined
        ? req.url
        : undefined;
    const choice = longLived ? pickAny(tried) : choose(tried, affinity);
    if ('full' in choice) {
      if (choice.full) {
        upstreamFaults.inc({ service, kind: 'overloaded' });
        if (!res.headersSent) res.setHeader('retry-after', RETRY_AFTER_SECONDS);
        logger.warn('upstream queue full', { service, requestId });
      } else upstreamFaults.inc({ service, kind: 'refused' });
      // A streamed body nobody will read is the edge's to discard (drainUnread), within its bound.
      if (isStreamed(body)) body.done();
      sendEnvelope(res, GatewayFaults.unavailable);
      return;
    }
    const { target } = choice;
    tried.add(target);
    const { protocol, hostname, port } = parsedTarget(target);
    const headers: http.OutgoingHttpHeaders = { ...req.headers };
    if (Buffer.isBuffer(body)) {
      // Sent with the length it turned out to have (a chunked body too), on a first try and on a retry.
      delete headers['transfer-encoding'];
      headers['content-length'] = body.length;
    }

    // Exactly one outcome per attempt for the client: the upstream's answer, or the gateway's own envelope.
    let settled = false;
    // A request that changes nothing (GET, HEAD, OPTIONS) with no body or one held whole may be sent again to
    // another instance when this one failed before its answer began: the client sees no fault from a replica lost
    // under it (issue 37). A write is retried only when refused (it never reached the instance).
    const idempotent = !isStreamed(body) && IDEMPOTENT_METHODS.has(req.method ?? '');
    const retryElsewhere = (): boolean => {
      if (!idempotent || res.headersSent || res.destroyed || pool.pick(tried) === undefined) return false;
      upstreamRetries.inc({ service });
      forward(req, res, body, tried, memory);
      return true;
    };
    // The upstream's answer is being passed on, until its last byte.
    let passing = false;
    let timer: NodeJS.Timeout | undefined;
    const onError = (err: unknown) => {
      logger.error('forwarding fault', { service, requestId, error: err instanceof Error ? err.stack : String(err) });
      settled = true;
      clearTimeout(timer);
      proxyReq.destroy();
      if (isStreamed(body)) stopStreaming();
      if (res.headersSent) res.destroy();
      else sendEnvelope(res, { status: 502, code: 'C0000', message: GatewayFaults.unavailable.message });
    };
    const on = <A extends unknown[]>(listener: (...args: A) => void) => guarded(onError, listener);

    const proxyReq = http.request({
      agent: longLived ? streamAgent : agent,
      protocol,
      hostname,
      port,
      method: req.method,
      path: req.url,
      headers,
      setHost: false,
    });
    // Counted until the upstream request is over (a destroyed one still waiting leaves the agent's queue only then).
    if (!longLived) proxyReq.once('close', on(hold(target)));
    const unwatch = idempotent
      ? watch(
          target,
          on(() => {
            if (settled) return;
            // Moved only to an instance that is up: when every other one is marked down too (their probes failed
            // together, as when a broker node they all ping froze), the request waits here under its own timeout
            // rather than being refused with 503 by the gateway (bench:faults, a NATS node frozen).
            if (!pool.hasUpInstance(tried)) return;
            settled = true;
            clearTimeout(timer);
            logger.warn('upstream marked down under a request; sent to another instance', { service, target, requestId });
            proxyReq.destroy();
            if (!retryElsewhere()) {
              upstreamFaults.inc({ service, kind: 'refused' });
              sendEnvelope(res, GatewayFaults.unavailable);
            }
          }),
        )
      : () => undefined;
    proxyReq.once('close', unwatch);

    const answerTimeout = () => {
      if (settled) return;
      settled = true;
      logger.warn('upstream timeout', { service, target, requestId });
      upstreamFaults.inc({ service, kind: 'timeout' });
      proxyReq.destroy();
      if (isStreamed(body)) stopStreaming();
      sendEnvelope(res, GatewayFaults.timeout);
    };
    const armResponseTimer = () => {
      clearTimeout(timer);
      timer = setTimeout(on(answerTimeout), options.timeoutMs);
    };

    proxyReq.on(
      'response',
      on((proxyRes: http.IncomingMessage) => {
        clearTimeout(timer);
        unwatch();
        if (settled) {
          proxyRes.resume();
          return;
        }
        settled = true;
        passing = true;
        // The upstream's connection management is not the client's: keep-alive with the client is decided here,
        // and so is the framing (Node frames what it sends: chunked for HTTP/1.1, to the close for HTTP/1.0).
        stripHopByHop(proxyRes.headers);
        delete proxyRes.headers['transfer-encoding'];
        // What the service says to the gateway's memory: read, and never passed on. A write forgets here, before
        // its answer goes on.
        const internal = readInternalHeaders(proxyRes.headers);
        const receipt = memory?.answers.received(service, req, proxyRes.statusCode ?? 502, internal, proxyRes.headers, memory.began);
        proxyRes.headers.connection = res.shouldKeepAlive ? 'keep-alive' : 'close';
        res.writeHead(proxyRes.statusCode ?? 502, proxyRes.statusMessage, proxyRes.headers);
        const keep = receipt?.keep;
        if (keep) {
          // An offered answer is at most the services' largest kept answer (2 MiB): gathered as it passes.
          const chunks: Buffer[] = [];
          proxyRes.on(
            'data',
            on((chunk: Buffer) => void chunks.push(chunk)),
          );
          proxyRes.once(
            'end',
            on(() => keep(Buffer.concat(chunks))),
          );
        }
        proxyRes.once(
          'end',
          on(() => {
            passing = false;
            // The upstream answered before reading the whole body (a 400 or 401 at once): that upstream request
            // can never complete, so it goes, and the rest of the client's body is drained by the edge (`edge.ts`).
            if (!req.complete) {
              if (isStreamed(body)) stopStreaming();
              proxyReq.destroy();
            }
          }),
        );
        passOn(proxyRes, res, on);
      }),
    );

    proxyReq.on(
      'error',
      on((err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (settled) {
          // Cut in the middle of the upstream's answer: the client cannot be told more than that. (After the
          // gateway's own answer, or once the upstream's has ended, the fault is nobody's business.)
          if (passing) res.destroy();
          return;
        }
        settled = true;
        if (isStreamed(body)) stopStreaming();
        if (err.code === 'ECONNREFUSED') {
          pool.markDown(target);
          logger.warn('upstream refused', { service, target, requestId });
          // A body held whole (or none) can be sent again to another instance; a streamed one is partly gone.
          if (!isStreamed(body) && !res.headersSent && pool.pick(tried) !== undefined) {
            upstreamRetries.inc({ service });
            forward(req, res, body, tried, memory);
            return;
          }
          upstreamFaults.inc({ service, kind: 'refused' });
          sendEnvelope(res, GatewayFaults.unavailable);
          return;
        }
        logger.warn('upstream fault', { service, target, error: err.message, code: err.code, requestId });
        // Failed before its answer began (a replica killed with the request on a pooled connection: ECONNRESET):
        // a read goes to another instance.
        if (retryElsewhere()) return;
        upstreamFaults.inc({ service, kind: 'error' });
        sendEnvelope(res, { status: 502, code: 'C0000', message: GatewayFaults.unavailable.message });
      }),
    );

    // A client that goes away takes its upstream request with it, instead of holding it until the timeout.
    res.once(
      'close',
      on(() => {
        clearTimeout(timer);
        if (!res.writableFinished) {
          settled = true;
          proxyReq.destroy();
        }
      }),
    );

    // The body. Whole or none: sent at once, and the upstream must start answering within the timeout of now
    // (a wait for a connection included). Streamed: as it arrives, under its own total deadline; the upstream's
    // timeout starts once the last byte has been handed on.
    let stopStreaming = () => undefined as void;
    if (!isStreamed(body)) {
      armResponseTimer();
      proxyReq.end(body);
      return;
    }
    let size = 0;
    let ended = false;
    const streamed = body;
    const onData = on((chunk: Buffer) => {
      size += chunk.length;
      if (size > streamed.limit) {
        refuse(GatewayFaults.tooLarge);
        return;
      }
      if (!proxyReq.write(chunk)) req.pause();
    });
    const onDrain = on(() => req.resume());
    const onEnd = on(() => {
      ended = true;
      stopStreaming();
      if (!settled) {
        proxyReq.end();
        armResponseTimer();
      }
    });
    const onClose = on(() => {
      // Before `end`, the client went away (its answer goes with it: see `res` close above).
      if (!ended) stopStreaming();
    });
    let streaming = true;
    stopStreaming = () => {
      if (!streaming) return;
      streaming = false;
      clearTimeout(deadline);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      proxyReq.off('drain', onDrain);
      streamed.done();
    };
    const refuse = (fault: Fault) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopStreaming();
      proxyReq.destroy();
      streamed.refuse(fault);
    };
    const deadline = setTimeout(
      on(() => refuse(GatewayFaults.bodyTimeout)),
      streamed.deadlineMs,
    );
    streamed.start();
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    proxyReq.on('drain', onDrain);
  };

  return (req, res, body) => {
    const answers = options.answers?.();
    forward(req, res, body, new Set(), answers && { answers, began: answers.began(service) });
  };
}

/**
 * An upstream answer passed on to the client, with listeners of its own on both streams (a bare pipe listens for
 * neither: eslint-rules/streams.mjs): an upstream cut in the middle of its answer cuts the client's, a client gone
 * takes the upstream answer, and a slow client pauses the upstream (backpressure). Not `pipeline`: it makes an
 * AbortController for every call and aborts it when the streams finish, which builds a DOMException with its stack
 * trace: with the signal's set-up, 2.5 % of the gateway's whole CPU time in the site mix at saturation (about 7 % of
 * what it spent working; docs/benchmarks.md), for a feature (the signal) nothing here uses.
 */
function passOn(from: http.IncomingMessage, to: http.ServerResponse, on: <A extends unknown[]>(listener: (...args: A) => void) => (...args: A) => void): void {
  const drained = on(() => from.resume());
  from.on(
    'data',
    on((chunk: Buffer) => {
      if (!to.write(chunk)) from.pause();
    }),
  );
  to.on('drain', drained);
  from.once(
    'end',
    on(() => {
      to.off('drain', drained);
      to.end();
    }),
  );
  // Cut before its end (the upstream's connection lost): `close` without `end`, or an `error`.
  const cut = on(() => {
    if (!from.complete) to.destroy();
  });
  from.once('error', cut);
  from.once('close', cut);
  const gone = on(() => {
    if (!from.readableEnded) from.destroy();
  });
  to.once('close', gone);
  to.once('error', gone);
}

// The gateway's memory of the services' answers: what `forward` answers itself before passing a request on.

/**
 * How long after a change the gateway heard it keeps no answer depending on it: another instance of the service
 * may not have heard that change yet and still answer from its memory (an announcement arrives in milliseconds).
 */
export const ANSWERS_SETTLE_MS = CHANGES_HEARD_MS;

/** Headers of an upstream answer that belong to its one request, never given again with a kept answer. */
const REQUEST_OWN_HEADERS = ['date', 'x-request-id', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'];

/** Headers a 304 leaves out (what Express's `res.send` removes when the request is fresh). */
const NOT_IN_304 = ['content-type', 'content-length', 'transfer-encoding'];

const NO_CACHE = /(?:^|,)\s*?no-cache\s*?(?:,|$)/;

/**
 * Whether the client already holds the answer tagged `etag`: Express's `req.fresh` (the `fresh` package's rule)
 * for a request whose only condition is `If-None-Match`, so a kept answer is answered 304 exactly as the service
 * answers it.
 */
function clientHolds(req: http.IncomingMessage, etag: unknown): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (!noneMatch) return false;
  const cacheControl = req.headers['cache-control'];
  if (cacheControl && NO_CACHE.test(cacheControl)) return false;
  if (noneMatch === '*') return true;
  if (typeof etag !== 'string' || etag === '') return false;
  return noneMatch
    .split(',')
    .map((token) => token.trim())
    .some((match) => match === etag || match === `W/${etag}` || `W/${match}` === etag);
}

/** What the forwarder does with an upstream answer for the gateway's memory: keep its body once it has all of it. */
export interface AnswerReceipt {
  keep?: (body: Buffer) => void;
}

/**
 * The gateway's memory of the services' anonymous answers (issue 42: an answer from a service's memory still
 * crossed two HTTP hops, each with its whole middleware stack). Nothing is declared here: a service offers an
 * answer its own cache keeps (`CACHE_OFFER_HEADER`: lifetime and keys, from the operation's `cached` and
 * `dependsOn`), and the gateway keeps it in the same `ResponseCache` under the request's URL, one cache per service,
 * listening to the same announcements (`cache.<service>.changed`) with the same rules on a lost connection. An answer
 * depending on a key changed less than `ANSWERS_SETTLE_MS` ago is kept only when the service heard the same recent
 * changes of its keys as this gateway (`CACHE_HEARD_HEADER`, `ResponseCache.heardDigest`). A write
 * forwarded to a service forgets, before its answer goes on, what the answer says it changed
 * (`CACHE_CHANGED_HEADER`; everything of that service without it), so the writer's own next read, anonymous or not,
 * never sees an older answer here. Only anonymous GETs are answered from it or kept: no `Authorization`, no
 * cookie; an `If-None-Match` is answered 304 as the service answers it, and an `If-Modified-Since` or a `Range`
 * goes to the service. Answers that set a cookie or vary by a header are never kept.
 */
export class GatewayAnswers {
  private readonly caches = new Map<ServiceName, ResponseCache>();

  constructor(options: { maxBytes: number; now?: () => number }, host: AnnouncementHost) {
    for (const service of SERVICE_NAMES) {
      const cache = new ResponseCache({ maxBytes: options.maxBytes, settleMs: ANSWERS_SETTLE_MS, ...(options.now ? { now: options.now } : {}) });
      cache.listen(host, service, []);
      this.caches.set(service, cache);
    }
  }

  /** The memory's key of a request that may be answered from it, or `undefined`. */
  static keyOf(req: http.IncomingMessage): string | undefined {
    if (req.method !== 'GET') return undefined;
    const { headers } = req;
    if (headers.authorization !== undefined || headers.cookie !== undefined) return undefined;
    if (headers['if-modified-since'] !== undefined || headers.range !== undefined) return undefined;
    return req.url;
  }

  /** Answers `req` from memory when it may be and an answer lives; whether it did. */
  answer(service: ServiceName, req: http.IncomingMessage, res: http.ServerResponse): boolean {
    const key = GatewayAnswers.keyOf(req);
    if (key === undefined) return false;
    const kept = this.caches.get(service)?.recall(key);
    if (!kept) return false;
    if (clientHolds(req, kept.headers.etag)) {
      const headers = { ...kept.headers };
      for (const name of NOT_IN_304) delete headers[name];
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { ...kept.headers, 'content-length': kept.body.length });
    res.end(kept.body);
    return true;
  }

  /** What the request's answer will be compared with: the service's last change when it is sent on. */
  began(service: ServiceName): number {
    return this.caches.get(service)?.lastChange ?? 0;
  }

  /**
   * An upstream answer arrived (its internal headers already read and removed by `readInternalHeaders`): a
   * successful write forgets what it changed, an offered anonymous answer is to be kept once whole.
   */
  received(
    service: ServiceName,
    req: http.IncomingMessage,
    status: number,
    internal: InternalHeaders,
    headers: http.IncomingHttpHeaders,
    began: number,
  ): AnswerReceipt {
    const cache = this.caches.get(service);
    if (!cache) return {};
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      if (status < 400) cache.forget(readChanged(internal.changed), 'here', readTextHeader(internal.changeId));
      return {};
    }
    const key = GatewayAnswers.keyOf(req);
    const offer = status === 200 && key !== undefined ? readOffer(internal.offer) : undefined;
    if (key === undefined || offer === undefined || headers['set-cookie'] !== undefined || headers.vary !== undefined) return {};
    const kept: http.OutgoingHttpHeaders = { ...headers };
    for (const name of REQUEST_OWN_HEADERS) delete kept[name];
    const heard = readTextHeader(internal.heard);
    return { keep: (body) => void cache.keep(key, began, offer, body, kept, heard) };
  }

  stop(): void {
    for (const cache of this.caches.values()) cache.stop();
  }
}

/** The internal headers of an upstream answer (`CACHE_OFFER_HEADER`, `CACHE_CHANGED_HEADER`). */
export interface InternalHeaders {
  offer: string | string[] | undefined;
  changed: string | string[] | undefined;
  changeId: string | string[] | undefined;
  heard: string | string[] | undefined;
}

/** Reads the internal headers and removes them: the client never sees them, with the gateway's memory or without. */
export function readInternalHeaders(headers: http.IncomingHttpHeaders): InternalHeaders {
  const internal = {
    offer: headers[CACHE_OFFER_HEADER],
    changed: headers[CACHE_CHANGED_HEADER],
    changeId: headers[CACHE_CHANGE_ID_HEADER],
    heard: headers[CACHE_HEARD_HEADER],
  };
  for (const name of [CACHE_OFFER_HEADER, CACHE_CHANGED_HEADER, CACHE_CHANGE_ID_HEADER, CACHE_HEARD_HEADER]) delete headers[name];
  return internal;
}
