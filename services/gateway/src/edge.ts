/**
 * What the gateway answers by itself at its edge (the envelope of its own errors, CORS), its own metrics, and
 * `guarded`, which every listener it adds to an emitter goes through.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import cors from 'cors';
import { errorEnvelope, ErrorCodes, Counter, Histogram, metricsRegistry } from '@binzip/shared/core';
import type { ServiceName } from './proxy/upstreams';

/**
 * Every listener the gateway adds to an emitter (a socket, a request, a response, a server) is wrapped by
 * `guarded`: an exception inside a listener is thrown into the emitter that called it, where nobody catches it,
 * and the process's fatal handler would end the gateway for one request (issue 34 item 1: a header removed after
 * the headers were sent, under 300 concurrent POSTs). Wrapped, the throw goes to `onError` instead, which answers
 * or cuts the one request concerned. A lint rule (eslint.config.mjs, "services/gateway/src") refuses a listener
 * that is not wrapped.
 */
export function guarded<A extends unknown[]>(onError: (err: unknown, ...args: unknown[]) => void, listener: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      listener(...args);
    } catch (err) {
      try {
        onError(err, ...args);
      } catch {
        // Nothing is left to do for that request; the gateway goes on with the others.
      }
    }
  };
}

/**
 * What every answer of the gateway carries and how the gateway answers by itself (decisions.md, "Content and
 * the edge"): a JSON envelope for every answer it makes, parser errors included, `nosniff` everywhere.
 */
export interface Fault {
  status: number;
  code: string;
  message: string;
}

export const invalidRequest: Fault = { status: 400, code: 'C0002', message: ErrorCodes.C0002.message };

/** Writes an envelope answer; a response already under way can only be cut. */
export function sendEnvelope(res: http.ServerResponse, fault: Fault, closeConnection = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorEnvelope(fault.code, fault.message));
  res.statusCode = fault.status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-store');
  if (closeConnection) res.setHeader('connection', 'close');
  res.end(body);
}

/** An envelope answer written straight to a socket Node's HTTP layer has given up on (or never parsed a request of). */
function endWithEnvelope(socket: Duplex, status: number, reason: string, extraHeaders = ''): void {
  const body = JSON.stringify(errorEnvelope('C0002', ErrorCodes.C0002.message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n${extraHeaders}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * Requests Node's HTTP parser rejects before any handler runs (headers or URL over the limit, a malformed request
 * line or header, conflicting framing) still get an envelope and `nosniff` instead of an empty response.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  endWithEnvelope(socket, status, { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status]);
}

/** `CONNECT` (Node hands it to a separate event and, unanswered, just closes the socket): the gateway tunnels nothing. */
export function answerConnect(_req: http.IncomingMessage, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  endWithEnvelope(socket, 405, 'Method Not Allowed', 'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n');
}

/**
 * The most header bytes the gateway takes from a client: 1 KiB under what the services' Node parser takes
 * (16 KiB), so what the gateway adds (request id, forwarding headers) never makes a service answer a bare 431.
 */
export const MAX_HEADER_BYTES = 15 * 1024;
/** The most header lines the gateway takes from a client (Node would otherwise drop the ones past 2,000 silently). */
export const MAX_HEADER_COUNT = 200;

const tooManyHeaders: Fault = { status: 431, code: 'C0002', message: ErrorCodes.C0002.message };

/**
 * What Node's parser lets through but the gateway refuses itself, as envelopes: an HTTP/1.1 request without
 * `Host` (RFC 9112 3.2; Node's own refusal has no body, so its check is off) and more header lines than
 * `MAX_HEADER_COUNT` (the server keeps one more than that, so the excess is seen rather than cut).
 */
export function headerFault(req: http.IncomingMessage): Fault | undefined {
  if (req.rawHeaders.length / 2 > MAX_HEADER_COUNT) return tooManyHeaders;
  if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) return invalidRequest;
  return undefined;
}

/** An `Expect` other than `100-continue` (Node would answer an empty 417): the same status, with an envelope. */
export function answerBadExpectation(_req: http.IncomingMessage, res: http.ServerResponse): void {
  sendEnvelope(res, { status: 417, code: 'C0002', message: ErrorCodes.C0002.message }, true);
}

/**
 * Called once the answer is sent: after an answer made before the request body was read to its end (a 401, 413 or
 * 429 here, an upstream's early 400), the rest of the body is read and discarded so the client can read the answer
 * and the keep-alive connection can carry the next request. At most `maxBytes` of it and for at most `deadlineMs`:
 * past either, the connection is closed, gently (issue 34 item 7): the gateway's side is ended after the answer and
 * what the client still sends is read and dropped a moment longer, since closing a socket with unread input resets
 * it, and a reset can take the answer the client has not read yet with it.
 */
export function drainUnread(req: http.IncomingMessage, maxBytes: number, deadlineMs: number): void {
  if (req.complete || req.destroyed) return;
  req.unpipe();
  const socket = req.socket;
  // An answer that closes the connection (`Connection: close`, the client's or the gateway's) has just had Node end
  // the socket and plan to destroy it once the answer is flushed (`destroySoon`): the input still arriving would
  // reset the connection under the client, who is still sending and has not read the answer. The gateway's side
  // stays ended; the destruction waits for the drain below.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the very function destroySoon passed to once(), only removed
  if (socket.writableEnded) socket.removeListener('finish', socket.destroy);
  let drained = 0;
  const close = guarded(
    () => socket.destroy(),
    () => {
      clearTimeout(deadline);
      req.removeListener('data', count);
      lingerClose(socket);
    },
  );
  const count = guarded(
    () => socket.destroy(),
    (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > maxBytes) close();
    },
  );
  const deadline = setTimeout(close, deadlineMs);
  deadline.unref();
  req.once(
    'end',
    guarded(
      () => undefined,
      () => clearTimeout(deadline),
    ),
  );
  req.on('data', count);
  req.resume();
}

/** How long a closing connection's late input is still read and dropped. */
const LINGER_MS = 2_000;

/** Ends the gateway's side of a connection, reads and drops what still comes for `LINGER_MS`, then lets it go. */
export function lingerClose(socket: Duplex): void {
  if (socket.destroyed) return;
  const destroy = guarded(
    () => undefined,
    () => socket.destroy(),
  );
  const timer = setTimeout(destroy, LINGER_MS);
  timer.unref();
  socket.once(
    'close',
    guarded(
      () => undefined,
      () => clearTimeout(timer),
    ),
  );
  // Node's HTTP server keeps reading the connection (its parser drops the rest of the body): only our side ends.
  socket.end();
}

const AWAITING_CONTINUE = Symbol('awaiting 100-continue');
type MaybeAwaiting = http.IncomingMessage & { [AWAITING_CONTINUE]?: { keepAlive: boolean } };

/**
 * `Expect: 100-continue` (Node's `checkContinue`): the gateway sends the 100 itself, and only once it will read the
 * body (the token verified, the body within its limits and its budget); an answer given before that closes the
 * connection, since the client, told nothing, will not send the body the connection would otherwise wait for.
 */
export function awaitContinue(req: http.IncomingMessage, res: http.ServerResponse): void {
  (req as MaybeAwaiting)[AWAITING_CONTINUE] = { keepAlive: res.shouldKeepAlive };
  res.shouldKeepAlive = false;
}

/** Sends the 100 of a request that asked for it (once), right before its body is read. */
export function sendContinue(req: http.IncomingMessage, res: http.ServerResponse): void {
  const awaiting = (req as MaybeAwaiting)[AWAITING_CONTINUE];
  if (awaiting === undefined || res.headersSent) return;
  (req as MaybeAwaiting)[AWAITING_CONTINUE] = undefined;
  res.shouldKeepAlive = awaiting.keepAlive;
  res.writeContinue();
}

/**
 * `CORS_ORIGINS` entries: exact origins (`https://binzip.example`) or an origin with any port
 * (`http://localhost:*`). `*` and `null` are refused by the config: an arbitrary origin never gets credentials.
 */
export function originMatcher(list: readonly string[]): (origin: string) => boolean {
  const exact = new Set(list.filter((entry) => !entry.endsWith(':*')));
  const anyPort = list.filter((entry) => entry.endsWith(':*')).map((entry) => entry.slice(0, -1));
  return (origin) => exact.has(origin) || anyPort.some((prefix) => origin.startsWith(prefix) && /^\d{1,5}$/.test(origin.slice(prefix.length)));
}

export type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: (err?: unknown) => void) => void;

/** Credentials for allowed origins only; preflights answered here (204) and cached by browsers for 10 minutes. */
export function corsPolicy(origins: readonly string[]): Middleware {
  const allowed = originMatcher(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed(origin)),
    credentials: true,
    maxAge: 600,
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy'],
  }) as Middleware;
}

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
