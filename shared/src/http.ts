import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Connection } from 'mongoose';
import { authenticate } from './auth';
import { memberWriteCeiling, type CeilingSettings } from './ceilings';
import { refuseRevokedSessions } from './sessions';
import { refuseSuspendedWrites, type SuspensionLookup } from './suspension';
import { requestContext } from './context';
import { errorEnvelope, sendOk, successEnvelope } from './envelope';
import { AppError, ErrorCodes, GatewayFaults, TooManyRequestsError } from './errors';
import { FIELD_LABELS_KEY, InvalidFieldError, type FieldLabels } from './validation';
import type { Logger } from './logger';
import { observeRequestDurations } from './metrics';
import { isConnected, isStoreUnavailableError } from './mongo';
import type { ApiDocument } from './openapi';
import type { ResponseCache } from './response-cache';

export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Takes a well-formed incoming request id or makes one, returns it, and scopes the request's logs to it. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const id = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    requestContext.run({ requestId: id }, next);
  };
}

/** Probes arrive every few seconds from the gateway and orchestrators: logged only at debug, unless they fail. */
const PROBE_PATHS = new Set(['/health', '/ready']);

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
      const level = PROBE_PATHS.has(path) && res.statusCode < 400 ? 'debug' : 'info';
      logger.log(level, 'request', { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
    });
    next();
  };
}

/** Wraps a use-case: whatever it returns becomes `data`; `undefined` means no `data` member. */
export function handle<T>(fn: (req: Request, res: Response) => Promise<T> | T): RequestHandler {
  return async (req, res) => {
    const data = await fn(req, res);
    sendOk(res, data);
  };
}

const notFoundHandler: RequestHandler = (_req, _res, next) => next(AppError.notFound());

interface BodyParserError {
  type?: string;
  status?: number;
}

/** The one place errors become envelopes. Client mistakes are 4xx; a stack never leaves the process. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof TooManyRequestsError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
    if (err instanceof InvalidFieldError) logger.info('request value refused', { field: err.field, answer: err.message });
    if (err instanceof AppError) {
      res.status(err.status).json(errorEnvelope(err.code, err.message));
      return;
    }
    const parserError = err as BodyParserError;
    if (parserError?.type === 'entity.too.large') {
      res.status(GatewayFaults.tooLarge.status).json(errorEnvelope(GatewayFaults.tooLarge.code, GatewayFaults.tooLarge.message));
      return;
    }
    if (parserError?.type === 'entity.parse.failed') {
      res.status(400).json(errorEnvelope('C0002', '요청 본문이 올바른 JSON 형식이 아닙니다.'));
      return;
    }
    if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      res.status(400).json(errorEnvelope('C0002', ErrorCodes.C0002.message));
      return;
    }
    if ((err as { code?: number })?.code === 11000) {
      // A uniqueness race the use-case did not pre-check: the value exists, which is the client's concern.
      logger.warn('duplicate key reached the error handler', { error: (err as Error).message });
      res.status(400).json(errorEnvelope('C0002', '이미 존재하는 값입니다.'));
      return;
    }
    if (isStoreUnavailableError(err)) {
      // The store is away (an outage the driver is riding out): say so at once, like the gateway does for a
      // service that is away, instead of a generic fault.
      logger.warn('store unavailable', { error: (err as Error).message });
      res.status(GatewayFaults.unavailable.status).json(errorEnvelope(GatewayFaults.unavailable.code, GatewayFaults.unavailable.message));
      return;
    }
    logger.error('unexpected fault', { error: err instanceof Error ? err.stack : String(err) });
    res.status(500).json(errorEnvelope('C0000', ErrorCodes.C0000.message));
  };
}

/**
 * `TRUST_PROXY` as Express takes it. Express reads a string only as addresses or subnet names, so the env
 * values `false`, `true` and a hop count (`1`) would fail as "invalid IP address": they become the boolean
 * or number they mean. Anything else (`loopback`, `uniquelocal, 10.0.0.1`) is passed on as it is.
 */
export function trustProxySetting(value: string | boolean | number): string | boolean | number {
  if (typeof value !== 'string') return value;
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true') return true;
  if (normalized === 'false' || normalized === '') return false;
  if (/^\d+$/.test(normalized)) return Number(normalized);
  return value;
}

/** What every service's `buildApp` takes; services add their own members. */
export interface ServiceAppDeps {
  connection: Connection;
  logger: Logger;
  /** PEM of the access-token public key. */
  publicKey: string;
  /** Who may tell us the client address (see `trustProxySetting`). */
  trustProxy?: string | boolean | number;
  /** The clock (default: the real one); tests move it. */
  now?: () => Date;
  /** `CEILING_*` settings; absent, no ceiling is counted (tests of other rules). */
  ceilings?: CeilingSettings;
  /** Kicks the outbox relay after a write that stored an event (services that publish). */
  eventsPending?: () => void;
  /** Public GET answers kept briefly (main.ts makes one that listens on NATS); absent, buildApp makes its own. */
  responseCache?: ResponseCache;
}

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  /** PEM of the access-token public key. */
  publicKey: string;
  /** Mounts the service's routes. */
  routes: (app: Express) => void;
  /** The cache the routes use: every successful write forgets it (`forgetOnWrites`). */
  responseCache?: ResponseCache;
  bodyLimit?: string;
  /** `/health` answers 503 while this database connection is down. */
  connection?: Connection;
  /** Extra readiness check for `/health`. */
  healthy?: () => boolean | Promise<boolean>;
  /** Express `trust proxy` setting: who may tell us the client address. */
  trustProxy?: string | boolean | number;
  /** Middleware that must run before the JSON parser (e.g. cookies). */
  before?: RequestHandler[];
  /** Where a suspension is looked up; given, a suspended member's writes answer 403 U0012 (backoffice.md). */
  isSuspended?: SuspensionLookup;
  /** `CEILING_*`: given (with `connection`), each member's writes are counted and held to the ceiling (429 C0004). */
  ceilings?: CeilingSettings;
  /** The service's API document (src/openapi.ts), served at `/openapi.json` for the gateway to merge. */
  apiDocument?: () => ApiDocument;
  /** Korean names of the request fields, used by `parseBody`/`parseQuery`/`parseParams` in C0002 messages. */
  fieldLabels?: FieldLabels;
}

/** Builds a service's Express app (no listening: tests drive it with supertest). */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(options.trustProxy ?? 'loopback'));
  app.set('query parser', 'simple');
  app.locals[FIELD_LABELS_KEY] = options.fieldLabels ?? {};
  app.use(requestId());
  app.use(accessLog(options.logger));
  app.use(observeRequestDurations());
  app.get('/health', async (_req, res) => {
    const connected = options.connection ? isConnected(options.connection) : true;
    const healthy = connected && (options.healthy ? await options.healthy() : true);
    res
      .status(healthy ? 200 : 503)
      .json(healthy ? successEnvelope({ status: 'UP', service: options.service }) : errorEnvelope('C0000', ErrorCodes.C0000.message));
  });
  if (options.apiDocument) {
    const document = options.apiDocument;
    let cached: ApiDocument | undefined;
    app.get('/openapi.json', (_req, res) => {
      res.json((cached ??= document()));
    });
  }
  for (const middleware of options.before ?? []) app.use(middleware);
  app.use(express.json({ limit: options.bodyLimit ?? '1mb', strict: true, type: ['application/json', 'application/*+json'] }));
  app.use(authenticate(options.publicKey));
  app.use(refuseRevokedSessions);
  if (options.isSuspended) app.use(refuseSuspendedWrites(options.isSuspended));
  if (options.ceilings && options.connection) app.use(memberWriteCeiling(options.connection, options.ceilings));
  // Express would answer OPTIONS itself with a plain-text method list; preflight belongs to the gateway.
  app.options(/.*/, notFoundHandler);
  if (options.responseCache) app.use(options.responseCache.forgetOnWrites());
  options.routes(app);
  app.use(notFoundHandler);
  app.use(errorHandler(options.logger));
  return app;
}
