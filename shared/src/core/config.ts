/**
 * What a process is told and what it is: its environment, parsed once at start-up and failing fast with every
 * problem listed so a bad deploy never half-starts, and its release.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { jwtPublicKeySchema } from './auth';
import { metricsConfigShape } from './telemetry';

export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  // One line, naming every bad setting: what a container's or a supervisor's log shows as the reason it stopped.
  throw new Error(`Invalid configuration: ${problems.join('; ')}`);
}

const ceilingCount = (fallback: number) => z.coerce.number().int().min(0).max(1_000_000).default(fallback);
const ceilingSeconds = (fallback: number) => z.coerce.number().int().min(1).max(86_400).default(fallback);

/**
 * `CEILING_*` settings, read by every service (README, "Configuration"). The defaults are far above what a
 * person does by hand, and far below what a script does: a member writes a post, a comment or a like every
 * few seconds at most; a household or an office behind one address signs up a handful of accounts an hour,
 * each needing two or three codes.
 */
export const ceilingConfigShape = {
  /** Writes (POST/PUT/PATCH/DELETE) one member may make to one service per window (administrators are not counted). */
  CEILING_MEMBER_WRITES: ceilingCount(60),
  CEILING_MEMBER_WRITES_WINDOW_SECONDS: ceilingSeconds(60),
  /** Sign-ups (members and agents together) from one client address per window. */
  CEILING_SIGN_UPS_PER_ADDRESS: ceilingCount(20),
  CEILING_SIGN_UPS_WINDOW_SECONDS: ceilingSeconds(3_600),
  /** Verification codes sent (SMS and e-mail together, to any number or address) for one client address per window. */
  CEILING_CODE_SENDS_PER_ADDRESS: ceilingCount(60),
  CEILING_CODE_SENDS_WINDOW_SECONDS: ceilingSeconds(3_600),
};

const port = z.coerce.number().int().min(0).max(65535);

/** How the JetStream streams are kept (applied by whichever process ensures a stream first, and on every start). */
const streamConfigShape = {
  /** Copies of each stream in a NATS cluster (1 on a single server; 3 or 5 in a cluster). */
  NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How long comment events stay in their streams: a consumer down for longer misses them. */
  EVENT_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(87_600)
    .default(24 * 14),
  /** How long dead letters are kept for inspection and replay. */
  DEAD_LETTER_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(87_600)
    .default(24 * 30),
  /**
   * Byte ceiling of each event stream (COMMUNITY, RECORDS, HOUSES). NATS reserves it on its JetStream store when
   * the stream is created, so the default fits a small broker; see the README for sizing a large site.
   */
  EVENT_STREAM_MAX_MIB: z.coerce.number().int().min(1).max(1_048_576).default(32),
  /** Byte ceiling of the DEAD_LETTERS stream (reserved likewise). */
  DEAD_LETTER_STREAM_MAX_MIB: z.coerce.number().int().min(1).max(1_048_576).default(8),
};

/**
 * How a process stops on SIGTERM (every process, the gateway too): it reports not-ready at once and keeps
 * serving this long before it stops listening. Kubernetes' `terminationGracePeriodSeconds` must exceed it by
 * the time closing takes (at most 10 s). `npm start` and the tests set 0.
 */
export const shutdownConfigShape = {
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(300_000).default(10_000),
};

/** What every service reads: where it listens, its stores, the token key, logging. */
export function serviceConfigShape(defaults: { port: number; db: string }) {
  return {
    HOST: z.string().default('127.0.0.1'),
    PORT: port.default(defaults.port),
    MONGODB_URI: z.string().url().default('mongodb://127.0.0.1:27017'),
    MONGODB_DB: z.string().min(1).default(defaults.db),
    NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
    /** Namespaces subjects, streams and consumers (tests run side by side on one server). */
    NATS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]*$/)
      .default(''),
    /** The accepted access-token keys: one ES256 public key PEM, or a JWKS document during a rotation. */
    JWT_PUBLIC_KEY: jwtPublicKeySchema,
    LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silent']).default('info'),
    TRUST_PROXY: z.string().default('loopback'),
    /** How often the outbox relay retries what an outage left pending (services that publish). */
    OUTBOX_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
    ...metricsConfigShape,
    ...streamConfigShape,
    ...shutdownConfigShape,
    ...ceilingConfigShape,
    /** How long MongoDB or NATS may stay unreachable (at start-up or later) before the process exits non-zero. */
    OUTAGE_EXIT_MS: z.coerce.number().int().min(500).max(3_600_000).default(30_000),
    ...revocationFeedConfigShape,
    /** Bytes of anonymous answers the response cache keeps at most (services with one; docs/decisions-local.md). */
    RESPONSE_CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(32 * 1_048_576),
    /** Bytes of members' own answers it keeps at most, apart. */
    RESPONSE_CACHE_MAX_MEMBER_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(16 * 1_048_576),
  };
}

/**
 * The revocation feed (shared/src/bus/revocation-feed.ts): where a service reads accounts' endings of sessions and
 * changed users when NATS cannot tell it, and the shared secret of that read. Accounts answers only the bearer of
 * `REVOCATION_FEED_TOKEN`; a service without `ACCOUNTS_URLS` or the token hears of revocations through NATS only.
 */
export const revocationFeedConfigShape = {
  /** accounts' addresses as the services reach them (comma-separated, like the gateway's). */
  ACCOUNTS_URLS: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? value : undefined),
    z
      .string()
      .transform((text) => text.split(',').map((url) => url.trim()))
      .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1))
      .optional(),
  ),
  REVOCATION_FEED_TOKEN: z.preprocess((value) => (value === '' ? undefined : value), z.string().min(16).optional()),
  /** How often each process reads the feed (the bound of a revocation during a broker outage is this plus 5 s). */
  REVOCATION_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
};

export const portSchema = port;

const cache = new Map<string, string>();

/**
 * The release of a process: the `version` of its workspace's package.json (services/<name>/package.json), the one
 * source of truth that `/health` answers and the image build writes into the OCI label
 * `org.opencontainers.image.version` (scripts/lib/release.ts; docs/containers.md, "Versions and releases").
 * Read from the file beside the compiled code (shared/dist/core → ../../../services/<name>), which every image
 * carries; 'unknown' where the file is not there (a process name that is not a workspace, such as a test's).
 */
export function processVersion(name: string): string {
  let version = cache.get(name);
  if (version === undefined) {
    try {
      const file = path.resolve(__dirname, '..', '..', '..', 'services', name, 'package.json');
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      version = typeof parsed.version === 'string' ? parsed.version : 'unknown';
    } catch {
      version = 'unknown';
    }
    cache.set(name, version);
  }
  return version;
}
