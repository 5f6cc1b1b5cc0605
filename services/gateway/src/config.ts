import { loadConfig, portSchema } from '@binzip/shared';
import path from 'node:path';
import { z } from 'zod';

const urlList = z
  .string()
  .min(1)
  .transform((value) =>
    value
      .split(',')
      .map((url) => url.trim().replace(/\/+$/, ''))
      .filter(Boolean),
  )
  .pipe(z.array(z.string().url()).min(1));

const positiveInt = z.coerce.number().int().positive();

export const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: portSchema.default(8080),
  JWT_PUBLIC_KEY: z.string().min(1),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silent']).default('info'),
  TRUST_PROXY: z.string().default('loopback'),
  ACCOUNTS_URLS: urlList.default(['http://127.0.0.1:7001']),
  COMMUNITY_URLS: urlList.default(['http://127.0.0.1:7002']),
  HOUSES_URLS: urlList.default(['http://127.0.0.1:7003']),
  RECORDS_URLS: urlList.default(['http://127.0.0.1:7004']),
  NOTIFICATIONS_URLS: urlList.default(['http://127.0.0.1:7005']),
  /** Upstream must start answering within this time, else 504. */
  UPSTREAM_TIMEOUT_MS: positiveInt.default(10_000),
  /** Largest request body forwarded, in bytes. */
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  /** Comma-separated allowed origins; `*` reflects any origin (credentials are always allowed). */
  CORS_ORIGINS: z.string().default('*'),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
  RATE_LIMIT_SIGN_IN_MAX: positiveInt.default(10),
  RATE_LIMIT_SEND_CODE_WINDOW_MS: positiveInt.default(600_000),
  RATE_LIMIT_SEND_CODE_MAX: positiveInt.default(5),
  /** How often each upstream's /health is probed to route around dead instances. */
  HEALTH_INTERVAL_MS: positiveInt.default(2_000),
  /** The built administrators' console served at /admin (from src/ or dist/, the repository's admin-console/dist). */
  ADMIN_CONSOLE_DIR: z
    .string()
    .min(1)
    .default(path.resolve(__dirname, '..', '..', '..', 'admin-console', 'dist')),
});

export type GatewayConfig = z.output<typeof configSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(configSchema, env);
