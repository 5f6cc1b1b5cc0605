import { loadConfig, serviceConfigShape } from '@binzip/shared';
import { z } from 'zod';

/** Comma-separated milliseconds, e.g. `5000,15000,30000`. */
const delayList = z
  .string()
  .regex(/^\d{1,7}(,\d{1,7})*$/)
  .transform((text) => text.split(',').map(Number));

export const configSchema = z.object({
  ...serviceConfigShape({ port: 7005, db: 'notifications' }),
  /** Deliveries of one comment event before JetStream gives up on it. */
  EVENT_MAX_DELIVER: z.coerce.number().int().min(1).max(1000).default(10),
  /** Redelivery delays after a failed write, by attempt (the last repeats). The ack wait is the shared 30 s. */
  EVENT_BACKOFF_MS: delayList.default([5_000, 15_000, 30_000, 60_000, 120_000]),
  /** A comment line on every live stream this often: below every proxy's idle timeout (the gateway's 10 s). */
  STREAM_HEARTBEAT_MS: z.coerce.number().int().min(1_000).max(9_000).default(5_000),
  /** Most notices a stream resumed with Last-Event-ID sends; past it the client is told to read the feed. */
  STREAM_RESUME_MAX: z.coerce.number().int().min(1).max(1_000).default(100),
});
export type Config = z.output<typeof configSchema>;
export const readConfig = (env = process.env): Config => loadConfig(configSchema, env);
