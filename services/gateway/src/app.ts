import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import {
  AppError,
  ErrorCodes,
  GatewayFaults,
  accessLog,
  errorEnvelope,
  errorHandler,
  notFoundHandler,
  requestId,
  successEnvelope,
  trustProxySetting,
  verifyAuthorizationHeader,
  type Logger,
} from '@binzip/shared';
import type { GatewayConfig } from './config';
import { SERVICE_NAMES, createPools, probePools, type Pools } from './domain/upstreams';
import { adminConsoleRouter } from './routes/admin-console';
import { apiDocsRouter } from './routes/api-docs';
import { proxyRouter } from './routes/proxy';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  /** Injected so tests can share or inspect them; built from config when absent. */
  pools?: Pools;
}

function rateLimited(windowMs: number, limit: number): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (_req, res) => {
      res.status(ErrorCodes.C0004.status).json(errorEnvelope('C0004', ErrorCodes.C0004.message));
    },
  });
}

/**
 * Paths whose Authorization header is not checked here: reissue is how a client with an expired access token
 * gets a new one, and accounts judges the refresh cookie itself.
 */
const TOKEN_CHECK_EXEMPT = new Set(['/api/v1/users/reissue']);

/** A bad or expired token is answered here; the upstream never sees the request. */
function verifyToken(publicKey: string): RequestHandler {
  return (req, _res, next) => {
    // Routing matches paths case-insensitively and with a trailing slash, so the exemption does too.
    const path = (req.originalUrl.split('?')[0] ?? '').toLowerCase().replace(/\/+$/, '');
    if (!TOKEN_CHECK_EXEMPT.has(path)) verifyAuthorizationHeader(req.headers.authorization, publicKey);
    next();
  };
}

/**
 * Only origin-form request targets (`/api/...`) are served. The absolute form (`GET http://host/api/v1/boards`,
 * what a client sends to a forward proxy) and `*` would reach the router and the upstream as something other
 * than a path: they get a 400 envelope here.
 */
const originFormOnly: RequestHandler = (req, _res, next) => {
  next(req.url.startsWith('/') ? undefined : AppError.invalid());
};

/** Declared lengths over the limit are refused before a byte is forwarded. */
function bodyLimit(maxBytes: number): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      res.status(GatewayFaults.tooLarge.status).json(errorEnvelope(GatewayFaults.tooLarge.code, GatewayFaults.tooLarge.message));
      return;
    }
    next();
  };
}

function corsOptions(origins: string): cors.CorsOptions {
  const list = origins
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return {
    origin: list.includes('*') ? true : list,
    credentials: true,
    exposedHeaders: ['x-request-id'],
  };
}

export function buildApp(deps: GatewayDeps): Express {
  const { config, logger } = deps;
  const pools =
    deps.pools ??
    createPools({
      accounts: config.ACCOUNTS_URLS,
      community: config.COMMUNITY_URLS,
      houses: config.HOUSES_URLS,
      records: config.RECORDS_URLS,
      notifications: config.NOTIFICATIONS_URLS,
    });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.use(originFormOnly);
  app.use(requestId());
  app.use(accessLog(logger));
  app.use(cors(corsOptions(config.CORS_ORIGINS)));

  app.get('/health', (_req, res) => {
    res.json(successEnvelope({ status: 'UP', service: 'gateway' }));
  });
  /** Ready when every service has at least one instance answering its own /health. */
  app.get('/ready', async (_req, res) => {
    const results = await probePools(pools, 2_000);
    const services = Object.fromEntries(SERVICE_NAMES.map((name) => [name, pools[name].urls.map((url) => ({ url, up: results[url] ?? false }))]));
    const ready = SERVICE_NAMES.every((name) => pools[name].urls.some((url) => results[url]));
    if (ready) res.json(successEnvelope({ status: 'READY', services }));
    else res.status(503).json({ ...errorEnvelope(GatewayFaults.unavailable.code, GatewayFaults.unavailable.message), data: { status: 'NOT_READY', services } });
  });

  app.use(adminConsoleRouter(config.ADMIN_CONSOLE_DIR));
  app.use(
    apiDocsRouter({
      services: Object.fromEntries(SERVICE_NAMES.map((name) => [name, pools[name].urls])),
      logger,
    }),
  );

  app.post('/api/v1/users/sign-in', rateLimited(config.RATE_LIMIT_WINDOW_MS, config.RATE_LIMIT_SIGN_IN_MAX));
  const sendCodeLimit = () => rateLimited(config.RATE_LIMIT_SEND_CODE_WINDOW_MS, config.RATE_LIMIT_SEND_CODE_MAX);
  app.post('/api/v1/users/send/sms', sendCodeLimit());
  app.post('/api/v1/users/send/email', sendCodeLimit());

  app.use('/api', bodyLimit(config.BODY_LIMIT_BYTES), verifyToken(config.JWT_PUBLIC_KEY));
  app.use(proxyRouter({ pools, timeoutMs: config.UPSTREAM_TIMEOUT_MS, logger, bodyLimitBytes: config.BODY_LIMIT_BYTES }));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}

/** Keeps routing away from dead instances between requests. */
export function startHealthProbes(pools: Pools, intervalMs: number): () => void {
  const timer = setInterval(() => void probePools(pools, Math.min(intervalMs, 2_000)), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
