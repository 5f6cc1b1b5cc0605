import express, { type Express } from 'express';
import {
  accessLog,
  errorHandler,
  notFoundHandler,
  observeRequestDurations,
  processVersion,
  successEnvelope,
  verificationKeys,
  type Logger,
} from '@binzip/shared/core';
import type { GatewayConfig } from './config';
import type { TrustFunction } from './proxy/trust';
import { SERVICE_NAMES, type Pools } from './proxy/upstreams';
import { adminConsoleRouter } from './routes/admin-console';
import { apiDocsRouter } from './routes/api-docs';
import { operatorRoutes } from './routes/operator';

export interface GatewayAppDeps {
  config: GatewayConfig;
  logger: Logger;
  pools: Pools;
  /** `TRUST_PROXY`, compiled once for the whole gateway. */
  trust: TrustFunction;
  /** True once the gateway has been told to stop (SIGTERM): `/ready` answers 503 while it drains. */
  draining?: () => boolean;
}

/**
 * The gateway's own pages (`/health`, `/ready`, `/metrics`, `/.well-known/jwks.json`, `/admin`, `/docs`, `/openapi.json` — one
 * `app.use`/`app.get` line each). Proxied `/api/v1/*` traffic never enters this app: the gateway's server hands
 * it to the proxies directly (see `gateway.ts`), which has already set the request id, CORS and security
 * headers and made the path canonical before anything reaches this app.
 */
export function buildApp(deps: GatewayAppDeps): Express {
  const { config, logger, pools } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trust);
  app.use(accessLog(logger));
  app.use(observeRequestDurations());

  app.get('/health', (_req, res) => {
    res.json(successEnvelope({ status: 'UP', service: 'gateway', version: processVersion('gateway') }));
  });
  app.use(operatorRoutes(deps));
  // The access-token keys every process accepts (public halves only), for anyone verifying tokens outside; short
  // caching, so a key added in a rotation is seen minutes later (docs/operations.md, "Key rotation").
  const jwks = verificationKeys(config.JWT_PUBLIC_KEY).jwks;
  app.get('/.well-known/jwks.json', (_req, res) => {
    res.set('cache-control', 'public, max-age=300').type('application/jwk-set+json').send(JSON.stringify(jwks));
  });

  app.use(adminConsoleRouter(config.ADMIN_CONSOLE_DIR));
  // Instances come and go (host names are re-resolved), so the document is fetched from the current ones.
  app.use(apiDocsRouter({ services: () => Object.fromEntries(SERVICE_NAMES.map((name) => [name, pools[name].instances])), logger }));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
