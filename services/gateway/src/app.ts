import express, { type Express } from 'express';
import { GatewayFaults, accessLog, errorEnvelope, errorHandler, notFoundHandler, successEnvelope, trustProxySetting, type Logger } from '@binzip/shared';
import type { GatewayConfig } from './config';
import { SERVICE_NAMES, probePools, type Pools } from './domain/upstreams';
import { adminConsoleRouter } from './routes/admin-console';
import { apiDocsRouter } from './routes/api-docs';

export interface GatewayAppDeps {
  config: GatewayConfig;
  logger: Logger;
  pools: Pools;
}

/**
 * The gateway's own pages (`/health`, `/ready`, and what other work adds: `/admin`, `/docs`, `/openapi.json`,
 * `/metrics` — one `app.use`/`app.get` line each). Proxied `/api/v1/*` traffic never enters this app: the
 * gateway's server hands it to the proxies directly (see `gateway.ts`), which has already set the request id,
 * CORS and security headers and made the path canonical before anything reaches this app.
 */
export function buildApp(deps: GatewayAppDeps): Express {
  const { config, logger, pools } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.use(accessLog(logger));

  app.get('/health', (_req, res) => {
    res.json(successEnvelope({ status: 'UP', service: 'gateway' }));
  });
  /** Ready when every service has at least one instance answering its own /health. */
  app.get('/ready', async (_req, res) => {
    const results = await probePools(pools, 2_000);
    const services = Object.fromEntries(SERVICE_NAMES.map((name) => [name, pools[name].instances.map((url) => ({ url, up: results[url] ?? false }))]));
    const ready = SERVICE_NAMES.every((name) => pools[name].instances.some((url) => results[url]));
    if (ready) res.json(successEnvelope({ status: 'READY', services }));
    else res.status(503).json({ ...errorEnvelope(GatewayFaults.unavailable.code, GatewayFaults.unavailable.message), data: { status: 'NOT_READY', services } });
  });

  app.use(adminConsoleRouter(config.ADMIN_CONSOLE_DIR));
  // Instances come and go (host names are re-resolved), so the document is fetched from the current ones.
  app.use(apiDocsRouter({ services: () => Object.fromEntries(SERVICE_NAMES.map((name) => [name, pools[name].instances])), logger }));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
