import express, { type Express, type RequestHandler } from 'express';
import type { Connection } from 'mongoose';
import { authenticate } from '../core/auth';
import { refuseRevokedSessions } from '../bus/members';
import { refuseSuspendedWrites, type SuspensionLookup } from '../core/auth';
import { accessLog, errorHandler, notFoundHandler, requestId, trustProxySetting, type FaultClassifier } from '../core/edge';
import { errorEnvelope, successEnvelope } from '../core/wire';
import { ErrorCodes, GatewayFaults } from '../core/wire';
import { FIELD_LABELS_KEY, type FieldLabels, type WrittenOutboxDocument } from '../core/operations';
import type { Logger } from '../core/telemetry';
import { observeRequestDurations } from '../core/telemetry';
import { processVersion } from '../core/config';
import { isConnected, isStoreUnavailableError, memberWriteCeiling, type CeilingSettings } from '../store/mongo';
import type { ApiDocument } from '../core/openapi';
import type { ResponseCache } from '../bus/response-cache';

/** The store is away (an outage the driver is riding out): said at once, like the gateway says a service is away. */
const storeUnavailable: FaultClassifier = (err, logger) => {
  if (!isStoreUnavailableError(err)) return undefined;
  logger.warn('store unavailable', { error: (err as Error).message });
  return GatewayFaults.unavailable;
};

/** Kept here for the modules that import it from the runtime. */
export { REQUEST_ID_HEADER } from '../core/edge';

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
  eventsPending?: (written?: WrittenOutboxDocument) => void;
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
  /** The cache the routes use: every successful write forgets what it changed (`forgetOnWrites`). */
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
      .json(
        healthy
          ? successEnvelope({ status: 'UP', service: options.service, version: processVersion(options.service) })
          : errorEnvelope('C0000', ErrorCodes.C0000.message),
      );
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
  app.use(errorHandler(options.logger, [storeUnavailable]));
  return app;
}
