import { jwtPublicKeySchema, loadConfig, metricsConfigShape, portSchema, shutdownConfigShape, VERIFIED_TOKENS_KEPT } from '@binzip/shared/core';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { SERVICE_NAMES, SERVICE_PORTS, upstreamSetting, type ServiceName, type UpstreamSetting } from './proxy/upstreams';

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

/**
 * Each service's instances (`<NAME>_URLS`, comma-separated, for every name in `SERVICE_PORTS`); by default its
 * port on this machine.
 */
const upstreamUrls = (name: ServiceName) => urlList.default([`http://127.0.0.1:${SERVICE_PORTS[name]}`]);
const upstreamSettings = Object.fromEntries(SERVICE_NAMES.map((name) => [upstreamSetting(name), upstreamUrls(name)])) as Record<
  UpstreamSetting,
  ReturnType<typeof upstreamUrls>
>;

const originList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((origin) => origin.trim().replace(/\/+$/, ''))
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s*]+(:(\d{1,5}|\*))?$/, 'an origin such as https://binzip.example or http://localhost:* (never * or null)')));

/** Addresses, subnets or proxy-addr's names (`loopback`, `uniquelocal`), comma-separated; checked at start-up. */
const addressList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .refine(
    (entries) => {
      try {
        proxyaddr.compile(entries);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'addresses, subnets (10.0.0.0/8) or loopback/linklocal/uniquelocal, comma-separated' },
  );

const positiveInt = z.coerce.number().int().positive();

export const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: portSchema.default(8080),
  /** The accepted access-token keys (a PEM, or a JWKS document), also published at /.well-known/jwks.json. */
  JWT_PUBLIC_KEY: jwtPublicKeySchema,
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silent']).default('info'),
  /**
   * Who may name the client in `X-Forwarded-For` (Express's values). Nobody by default: a gateway facing
   * clients directly must not let them pick the address the flood limits count.
   */
  TRUST_PROXY: z.string().default('false'),
  ...upstreamSettings,
  /** Upstream must start answering within this time, else 504. */
  UPSTREAM_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * A pooled upstream connection idle this long is closed by the gateway. Below the services' own 65 s
   * keep-alive timeout, so the gateway never writes a request onto a connection the service is closing.
   */
  UPSTREAM_IDLE_SOCKET_MS: positiveInt.max(64_000).default(60_000),
  /**
   * Connections the gateway opens to one service instance at once, and requests that may wait for one of them
   * beyond that; a request finding every instance of its service at both gets 503 C0000 with `Retry-After: 1` at
   * once, rather than joining an unbounded queue (issue 34). The wait counts against `UPSTREAM_TIMEOUT_MS`.
   */
  UPSTREAM_MAX_SOCKETS: positiveInt.default(256),
  UPSTREAM_MAX_QUEUED: z.coerce.number().int().min(0).default(256),
  /**
   * `path` (the default): an anonymous read goes to the replica its path hashes to (rendezvous hashing), so each
   * cacheable answer is computed and kept by one replica instead of by each (issue 37: three houses replicas with
   * their own caches cost 3.7x the CPU per request of one); a replica holding more than 1.5 times the average of the
   * requests in flight passes the path on to the next by its hash, so a hot path spills instead of pinning one
   * replica. `off`: every request in turn (docs/decisions-local.md, "Read affinity").
   */
  UPSTREAM_READ_AFFINITY: z.enum(['off', 'path']).default('path'),
  /**
   * The services' NATS (comma-separated servers) and its subject prefix: given, the gateway keeps the anonymous
   * answers the services offer and forgets them on their announcements there (`GatewayAnswers`,
   * docs/decisions-local.md "Response cache"); absent, every request goes to the services.
   */
  NATS_URL: z.string().min(1).optional(),
  NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/)
    .default(''),
  /**
   * Bytes of kept answers per service (the least recently used go first), besides 5,000 answers per service; 0 keeps
   * none (every request is passed on), as 0 turns the services' own caches off.
   */
  RESPONSE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(8 * 1_048_576),
  /** Largest request body forwarded, in bytes. */
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  /**
   * Total time a request body may take to arrive, from the first byte the gateway waits for to the last (not an
   * idle timeout: one byte every few seconds would renew that forever). Bodies are read whole before an upstream
   * connection is taken; past this the answer is 408 and the connection closes. 1 MiB on a slow 1 Mbit/s link is
   * about 9 s.
   */
  BODY_TIMEOUT_MS: positiveInt.default(15_000),
  /** The same deadline on the two picture upload paths (10 MB on 1 Mbit/s is about 85 s). */
  UPLOAD_BODY_TIMEOUT_MS: positiveInt.default(120_000),
  /**
   * What all request bodies the gateway holds (read whole before forwarding) may weigh together; a body is given
   * its declared length (a chunked one the limit) before it is read, until its answer is over, and one that finds
   * no room is refused at once with 503 C0000 and `Retry-After: 1`. Uploads are streamed, not held, and do not count.
   */
  BODY_BUFFER_BYTES: positiveInt.default(64 * 1_048_576),
  /**
   * After an answer given before a body was read (401, 413, 429), so much of the rest is read and dropped within
   * `BODY_TIMEOUT_MS`, so the client can read that answer (a socket closed on unread input resets it); past either,
   * the connection is closed gently.
   */
  DRAIN_BODY_LIMIT_BYTES: positiveInt.default(16 * 1_048_576),
  /** Request bodies one client address may be sending at once; more are refused at once (429 C0004). */
  BODY_READS_PER_ADDRESS: positiveInt.default(32),
  /**
   * Largest body forwarded on the two picture upload paths (POST /api/v1/houses/images, /api/v1/boards/images):
   * the services' 10 MiB file limit plus room for the multipart framing. Only a request with a verified token is
   * read (J0000 otherwise, before a byte of the body), and streamed to the service as it arrives, never held here.
   */
  UPLOAD_BODY_LIMIT_BYTES: positiveInt.default(10 * 1_048_576 + 65_536),
  /** Allowed origins (credentials allowed): exact origins, or `scheme://host:*` for any port. */
  CORS_ORIGINS: originList.default(['http://localhost:*', 'http://127.0.0.1:*']),
  /**
   * Flood ceilings per client address (per-account sign-in throttling is accounts'): generous, since many
   * members share one address behind a carrier or office NAT.
   */
  RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
  RATE_LIMIT_SIGN_IN_MAX: positiveInt.default(300),
  RATE_LIMIT_SEND_CODE_WINDOW_MS: positiveInt.default(60_000),
  RATE_LIMIT_SEND_CODE_MAX: positiveInt.default(60),
  /** Verified access tokens remembered until their expiry (`VerifiedTokens`; LRU beyond this count). */
  TOKEN_CACHE_SIZE: positiveInt.default(VERIFIED_TOKENS_KEPT),
  /** How often each upstream's /health is probed to route around dead instances. */
  HEALTH_INTERVAL_MS: positiveInt.default(2_000),
  /**
   * `/metrics` (Prometheus text) and the detail of `/ready`: `METRICS_ENABLED`, and who may read them, the bearer
   * of `METRICS_TOKEN` or a client in `OPERATOR_ADDRESSES` (nobody by default; see `routes/operator.ts`).
   */
  ...metricsConfigShape,
  OPERATOR_ADDRESSES: addressList.default([]),
  ...shutdownConfigShape,
  /** The built administrators' console served at /admin (from src/ or dist/, the repository's admin-console/dist). */
  ADMIN_CONSOLE_DIR: z
    .string()
    .min(1)
    .default(path.resolve(__dirname, '..', '..', '..', 'admin-console', 'dist')),
});

export type GatewayConfig = z.output<typeof configSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(configSchema, env);
