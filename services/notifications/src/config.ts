import { loadConfig, serviceConfigShape } from '@binzip/shared';
import { z } from 'zod';

/** Comma-separated milliseconds, e.g. `5000,15000,30000`. */
const delayList = z
  .string()
  .regex(/^\d{1,7}(,\d{1,7})*$/)
  .transform((text) => text.split(',').map(Number));

/** The browsers' push services (Chrome and Edge's FCM, Firefox's autopush, Windows, Safari's). */
export const PUSH_SERVICE_HOSTS = ['fcm.googleapis.com', '*.push.services.mozilla.com', '*.notify.windows.com', '*.push.apple.com'];

/** An empty variable (docker compose's `${VAPID_PUBLIC_KEY:-}`) is an unset one. */
const unset = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

export const configSchema = z
  .object({
    ...serviceConfigShape({ port: 7005, db: 'notifications' }),
    /** Deliveries of one comment event before JetStream gives up on it. */
    EVENT_MAX_DELIVER: z.coerce.number().int().min(1).max(1000).default(10),
    /** Redelivery delays after a failed write, by attempt (the last repeats). The ack wait is the shared 30 s. */
    EVENT_BACKOFF_MS: delayList.default([5_000, 15_000, 30_000, 60_000, 120_000]),
    /** A comment line on every live stream this often: below every proxy's idle timeout (the gateway's 10 s). */
    STREAM_HEARTBEAT_MS: z.coerce.number().int().min(1_000).max(9_000).default(5_000),
    /** Most notices a stream resumed with Last-Event-ID sends; past it the client is told to read the feed. */
    STREAM_RESUME_MAX: z.coerce.number().int().min(1).max(1_000).default(100),
    /** Web Push's VAPID key pair (`npm run keys` prints one) and contact; without them nothing is pushed. */
    VAPID_PUBLIC_KEY: unset(z.string().regex(/^[A-Za-z0-9_-]{87}$/, 'base64url of an uncompressed P-256 point')),
    VAPID_PRIVATE_KEY: unset(z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'base64url of a P-256 private key')),
    VAPID_SUBJECT: unset(z.string().regex(/^(mailto:|https:\/\/)\S+$/, 'a mailto: or https: address')),
    /** The push services' hosts members' subscriptions may name (`*.` covers the hosts under a domain). */
    PUSH_ENDPOINT_HOSTS: z
      .string()
      .default(PUSH_SERVICE_HOSTS.join(','))
      .transform((text) =>
        text
          .split(',')
          .map((host) => host.trim())
          .filter(Boolean),
      ),
    /** A PEM certificate authority to trust for push endpoints besides the system's (the local push sink's). */
    PUSH_CA_FILE: unset(z.string()),
    /** How long a push service keeps a message for a device that is offline. */
    PUSH_TTL_SECONDS: z.coerce.number().int().min(0).max(2_419_200).default(86_400),
    /** One push request's limit. */
    PUSH_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(60_000).default(10_000),
  })
  .superRefine((config, issue) => {
    const vapid = [config.VAPID_PUBLIC_KEY, config.VAPID_PRIVATE_KEY, config.VAPID_SUBJECT];
    if (vapid.some((v) => v !== undefined) && vapid.some((v) => v === undefined))
      issue.addIssue({ code: 'custom', path: ['VAPID_PUBLIC_KEY'], message: 'VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT go together' });
  });
export type Config = z.output<typeof configSchema>;
export const readConfig = (env = process.env): Config => loadConfig(configSchema, env);
