import http from 'node:http';
import { Duplex } from 'node:stream';
import type { Express, Request, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import {
  acceptedRequestId,
  AppError,
  ErrorCodes,
  GatewayFaults,
  nameServerRoute,
  REQUEST_ID_HEADER,
  requestContext,
  VerifiedTokens,
  type Logger,
} from '@binzip/shared/core';
import { buildApp } from './app';
import type { GatewayConfig } from './config';
import {
  MAX_HEADER_BYTES,
  MAX_HEADER_COUNT,
  answerBadExpectation,
  answerClientError,
  answerConnect,
  awaitContinue,
  headerFault,
  corsPolicy,
  drainUnread,
  invalidRequest,
  sendContinue,
  sendEnvelope,
  type Fault,
  type Middleware,
} from './edge';
import { guarded } from './edge';
import { BodyReader, hasBody, tooManyBodies } from './proxy/bodies';
import { requiredAccess } from './proxy/access';
import { canonicalTarget } from './proxy/paths';
import { clientAddress, compileTrust, forwardedChain, forwardedProtoAndHost, type TrustFunction } from './proxy/trust';
import {
  createPools,
  refreshPools,
  probePools,
  SERVICE_NAMES,
  systemResolver,
  upstreamSetting,
  type Pools,
  type Resolver,
  type ServiceName,
} from './proxy/upstreams';
import { observeProxied } from './edge';
import type { AnnouncementHost } from '@binzip/shared/response-cache';
import { createServiceProxies, GatewayAnswers, RETRY_AFTER_SECONDS, stripHopByHop, type UpstreamBody } from './proxy/forward';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  /** Injected so tests can share or inspect them; built from config when absent. */
  pools?: Pools;
  /** True once the gateway has been told to stop: its `/ready` then answers 503 while it drains. */
  draining?: () => boolean;
}

export interface Gateway {
  /** The request listener of the gateway's http.Server (supertest can drive it directly). */
  handle: http.RequestListener;
  /** The gateway's own pages; add routes here. */
  app: Express;
  pools: Pools;
  tokens: VerifiedTokens;
  /**
   * From now on, keeps the anonymous answers the services offer and forgets them on their announcements heard on
   * `host` (`GatewayAnswers`); main.ts calls it once connected to NATS. Before it, every request goes to the services.
   */
  hearAnnouncements: (host: AnnouncementHost) => void;
  /** Forgets every kept answer and stops listening (shutdown, tests). */
  stopHearing: () => void;
}

/**
 * Paths whose Authorization header is not checked here: reissue is how a client with an expired access token
 * gets a new one, and accounts judges the refresh cookie itself.
 */
const TOKEN_CHECK_EXEMPT = '/api/v1/users/reissue';

/** Picture uploads (one file of up to 10 MB, streamed to the owning service): `UPLOAD_BODY_LIMIT_BYTES` there only. */
const UPLOAD_PATHS = new Set(['/api/v1/houses/images', '/api/v1/boards/images']);

function floodCeiling(windowMs: number, limit: number, trust: TrustFunction): Middleware {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: false,
    // The address the trusted proxy chain gives (the peer when nobody is trusted); IPv6 clients by their /56.
    keyGenerator: (req) => ipKeyGenerator(clientAddress(req, trust)),
    handler: (_req, res) => sendEnvelope(res, { status: ErrorCodes.C0004.status, code: 'C0004', message: ErrorCodes.C0004.message }),
  }) as unknown as Middleware;
}

/**
 * The forwarding headers say what the gateway knows, judged by `TRUST_PROXY`: the client address chain up to
 * the first address it does not trust (a client's own claims are dropped otherwise), then the peer. Set,
 * never appended, so a retried request carries them once.
 */
function prepareForwarding(req: http.IncomingMessage, trust: TrustFunction): void {
  const chain = forwardedChain(req, trust);
  const { proto, host } = forwardedProtoAndHost(req, trust);
  stripHopByHop(req.headers);
  // An expectation is the gateway's to meet (it has sent the 100 itself, or the client sent the body anyway): the
  // body goes on as an ordinary one.
  delete req.headers.expect;
  req.headers['x-forwarded-for'] = chain.join(', ');
  req.headers['x-forwarded-proto'] = proto;
  if (host) req.headers['x-forwarded-host'] = host;
  else delete req.headers['x-forwarded-host'];
  delete req.headers['x-forwarded-port'];
}

/** Each service's instances, from its `<NAME>_URLS` setting. */
function upstreamUrls(config: GatewayConfig): Record<ServiceName, readonly string[]> {
  const urls = {} as Record<ServiceName, readonly string[]>;
  for (const name of SERVICE_NAMES) urls[name] = config[upstreamSetting(name)];
  return urls;
}

/**
 * The gateway's front door. Each request's path is made canonical once; `/api/v1/*` paths of a service go
 * straight to that service's pre-built proxy after the edge rules (request id, CORS, security headers, body
 * limit, token check, flood ceilings); everything else is the Express app's.
 */
export function buildGateway(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  const pools = deps.pools ?? createPools(upstreamUrls(config));
  const trust = compileTrust(config.TRUST_PROXY);
  const app = buildApp({ config, logger, pools, trust, draining: deps.draining });
  const tokens = new VerifiedTokens(config.JWT_PUBLIC_KEY, config.TOKEN_CACHE_SIZE);
  const cors = corsPolicy(config.CORS_ORIGINS);
  let answers: GatewayAnswers | undefined;
  const proxies = createServiceProxies({
    answers: () => answers,
    pools,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    idleSocketMs: config.UPSTREAM_IDLE_SOCKET_MS,
    maxSockets: config.UPSTREAM_MAX_SOCKETS,
    maxQueued: config.UPSTREAM_MAX_QUEUED,
    readAffinity: config.UPSTREAM_READ_AFFINITY,
    logger,
  });
  const bodies = new BodyReader(config.BODY_READS_PER_ADDRESS, config.BODY_BUFFER_BYTES);
  const sendCodeCeiling = () => floodCeiling(config.RATE_LIMIT_SEND_CODE_WINDOW_MS, config.RATE_LIMIT_SEND_CODE_MAX, trust);
  // Keyed on the canonical, lower-cased path: no spelling of these paths escapes its ceiling.
  const ceilings = new Map<string, Middleware>([
    ['/api/v1/users/sign-in', floodCeiling(config.RATE_LIMIT_WINDOW_MS, config.RATE_LIMIT_SIGN_IN_MAX, trust)],
    ['/api/v1/users/send/sms', sendCodeCeiling()],
    ['/api/v1/users/send/email', sendCodeCeiling()],
  ]);
  // One line per proxied request at `http` (LOG_LEVEL=http): the service logs the same request id at info,
  // `binzip_gateway_request_duration_seconds` counts every answer (the gateway's own 401/413/429 too), and
  // upstream faults are logged at warn.
  const logRequests = logger.isLevelEnabled('http');
  const bodyLimit = config.BODY_LIMIT_BYTES;
  const isUpload = (method: string | undefined, path: string): boolean => method === 'POST' && UPLOAD_PATHS.has(path.toLowerCase());
  const bodyLimitOf = (method: string | undefined, path: string): number => (isUpload(method, path) ? config.UPLOAD_BODY_LIMIT_BYTES : bodyLimit);

  const forward = (service: ServiceName, path: string, req: http.IncomingMessage, res: http.ServerResponse) => {
    // An anonymous read the gateway's memory holds is answered here, before anything else is done for it.
    if (answers && !hasBody(req) && answers.answer(service, req, res)) return;
    const upload = isUpload(req.method, path);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > bodyLimitOf(req.method, path)) {
      // Answered at once, the body unread: the edge drops what the client still sends (within its bound), so the
      // client reads this answer rather than a reset.
      sendEnvelope(res, GatewayFaults.tooLarge);
      return;
    }
    const lower = path.toLowerCase();
    const caller = lower === TOKEN_CHECK_EXEMPT ? null : tokens.check(req.headers.authorization);
    // A picture upload is a member's (the services answer J0000 without a token): refused here, before a byte of
    // its body is read, so no anonymous client has the gateway hold or stream 10 MB (issue 34 item 5).
    if (upload && caller === null) throw new AppError('J0000');
    // The same for every body: one sent without a token to an operation the services declare for members (or
    // administrators) is answered as its service would answer it, J0000, before a byte of it is read, instead
    // of being held (up to BODY_LIMIT_BYTES) and forwarded only to be refused. The edge drains what was sent,
    // within its bound, so the client reads the 401, and a client that asked for 100-continue is never asked.
    if (caller === null && hasBody(req) && requiredAccess(req.method, path) !== undefined) throw new AppError('J0000');
    const send = (body: UpstreamBody) => {
      prepareForwarding(req, trust);
      proxies[service](req, res, body);
    };
    // Called by a flood ceiling too, asynchronously: whatever it throws is this request's answer, never the process's.
    const proceed = guarded(
      (fault) => answerError(fault, res, logger),
      (err?: unknown) => {
        if (err) throw err instanceof Error ? err : new Error('flood ceiling failed', { cause: err });
        if (!hasBody(req)) {
          send(undefined);
          return;
        }
        const address = ipKeyGenerator(clientAddress(req, trust));
        if (upload) {
          // Streamed to the service as it arrives (never held whole here), counted among the address's bodies.
          const done = bodies.hold(address);
          if (done === undefined) {
            refuseBody(req, res, tooManyBodies);
            return;
          }
          try {
            send({
              limit: config.UPLOAD_BODY_LIMIT_BYTES,
              deadlineMs: config.UPLOAD_BODY_TIMEOUT_MS,
              start: () => sendContinue(req, res),
              refuse: (fault) => refuseBody(req, res, fault),
              done,
            });
          } catch (err) {
            done();
            throw err;
          }
          return;
        }
        const limits = { bytes: bodyLimit, deadlineMs: config.BODY_TIMEOUT_MS };
        void bodies
          .read(req, res, address, limits, () => sendContinue(req, res))
          .then((outcome) => {
            if ('body' in outcome) send(outcome.body);
            else if ('fault' in outcome) refuseBody(req, res, outcome.fault);
            // A client that went away has nobody to answer.
          })
          .catch((err: unknown) => answerError(err, res, logger));
      },
    );
    const ceiling = req.method === 'POST' ? ceilings.get(lower) : undefined;
    if (ceiling) ceiling(req, res, proceed);
    else proceed();
  };

  const handle: http.RequestListener = (req, res) => {
    const started = process.hrtime.bigint();
    res.setHeader('x-content-type-options', 'nosniff');
    // Personal data must never be kept by a cache on the way; a service (or a static page) may set its own.
    res.setHeader('cache-control', 'no-store');
    const requestId = acceptedRequestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    // Only origin-form targets are paths: the absolute form (`GET http://host/...`) and `*` are refused.
    const target = req.url?.startsWith('/') ? canonicalTarget(req.url) : undefined;
    const service = target?.route?.service;
    // One listener per request does the after-answer work: drain an unread body, count, log.
    res.once(
      'finish',
      guarded(
        (err) => logger.error('after-answer fault', { requestId, error: err instanceof Error ? err.stack : String(err) }),
        () => {
          drainUnread(req, config.DRAIN_BODY_LIMIT_BYTES, config.BODY_TIMEOUT_MS);
          if (service === undefined) return;
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          observeProxied(service, req.method, res.statusCode, seconds);
          if (logRequests) {
            logger.http('request', { method: req.method, path: target?.path, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10, service, requestId });
          }
        },
      ),
    );
    try {
      const refused = headerFault(req);
      if (refused) {
        sendEnvelope(res, refused, true);
        return;
      }
      if (!target) {
        sendEnvelope(res, invalidRequest);
        return;
      }
      req.url = target.path + target.query;
      // A trace's root is this request: named by the prefix that chose the service (`GET /api/v1/boards/*`).
      if (target.route) nameServerRoute(target.path.length === target.route.prefix.length ? target.route.prefix : `${target.route.prefix}/*`);
      const route = () => {
        try {
          if (service) forward(service, target.path, req, res);
          else requestContext.run({ requestId }, () => void app(req as Request, res as Response));
        } catch (err) {
          answerError(err, res, logger);
        }
      };
      // Without an Origin header there is nothing for CORS to say (the policy would add no header).
      if (req.headers.origin === undefined) route();
      else cors(req, res, route);
    } catch (err) {
      answerError(err, res, logger);
    }
  };
  const stopHearing = () => {
    answers?.stop();
    answers = undefined;
  };
  const hearAnnouncements = (host: AnnouncementHost) => {
    stopHearing();
    if (config.RESPONSE_CACHE_MAX_BYTES > 0) answers = new GatewayAnswers({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES }, host);
  };
  return { handle, app, pools, tokens, hearAnnouncements, stopHearing };
}

/**
 * A body the gateway will not wait for (too slow, too many from one address, no room in the budget): the answer
 * closes the connection, and the socket goes once it is written, rather than reading on what a slow client keeps
 * trickling. One too large while arriving is answered like one declared too large: the rest is dropped within
 * the edge's bound, so the client reads the 413.
 */
function refuseBody(req: http.IncomingMessage, res: http.ServerResponse, fault: Fault): void {
  if (fault === GatewayFaults.tooLarge) {
    sendEnvelope(res, fault);
    return;
  }
  res.once(
    'finish',
    guarded(
      () => undefined,
      () => req.socket.destroy(),
    ),
  );
  if (fault.status === 429 || fault.status === 503) res.setHeader('retry-after', RETRY_AFTER_SECONDS);
  sendEnvelope(res, fault, true);
}

function answerError(err: unknown, res: http.ServerResponse, logger: Logger): void {
  if (err instanceof AppError) {
    sendEnvelope(res, { status: err.status, code: err.code, message: err.message });
    return;
  }
  logger.error('unexpected fault', { error: err instanceof Error ? err.stack : String(err) });
  sendEnvelope(res, { status: 500, code: 'C0000', message: ErrorCodes.C0000.message });
}

/** The gateway's http.Server: the front door plus envelopes for what Node's parser refuses by itself. */
export function createGatewayServer(gateway: Gateway): http.Server {
  // Nothing a listener throws reaches the server's emitter (and from there the process's fatal handler): the one
  // connection or answer concerned is cut instead.
  const cut = (_err: unknown, ...args: unknown[]) => {
    for (const arg of args) if (arg instanceof Duplex || arg instanceof http.ServerResponse) arg.destroy();
  };
  const server = http.createServer({ requireHostHeader: false, maxHeaderSize: MAX_HEADER_BYTES }, guarded(cut, gateway.handle));
  server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  server.on('clientError', guarded(cut, answerClientError));
  server.on('connect', guarded(cut, answerConnect));
  server.on('checkExpectation', guarded(cut, answerBadExpectation));
  // `Expect: 100-continue`: the 100 is sent only once the body will be read (see `awaitContinue`).
  server.on(
    'checkContinue',
    guarded(cut, (req: http.IncomingMessage, res: http.ServerResponse) => {
      awaitContinue(req, res);
      gateway.handle(req, res);
    }),
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

export async function listenGateway(gateway: Gateway, port: number, host: string): Promise<http.Server> {
  const server = createGatewayServer(gateway);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Keeps routing current between requests: re-resolves service host names (so every replica behind one name
 * gets its share) and probes every instance's `/health` (so dead ones are skipped).
 */
export function startUpstreamUpkeep(pools: Pools, intervalMs: number, resolve: Resolver = systemResolver): () => void {
  const timer = setInterval(
    guarded(
      () => undefined,
      () => {
        void refreshPools(pools, resolve)
          .then(() => probePools(pools, Math.min(intervalMs, 2_000)))
          .catch(() => undefined);
      },
    ),
    intervalMs,
  );
  timer.unref();
  return () => clearInterval(timer);
}
