import { z } from 'zod';

const optionalText = z
  .string()
  .trim()
  .transform((value) => value || undefined)
  .optional();

/**
 * The pictures settings of a service that stores uploads (houses, community): where pictures are kept, where
 * they are served from, and the bounds of an upload. Spread into the service's config schema.
 */
export const mediaConfigShape = {
  /** `gridfs` (default: the service's own MongoDB database, nothing new to run) or `s3` (an S3-compatible bucket). */
  MEDIA_STORE: z.enum(['gridfs', 's3']).default('gridfs'),
  MEDIA_S3_BUCKET: optionalText,
  MEDIA_S3_REGION: z.string().min(1).default('us-east-1'),
  /** An S3-compatible endpoint (MinIO, S3Proxy, another cloud's); AWS itself when absent. */
  MEDIA_S3_ENDPOINT: z.string().url().optional(),
  /** Both or neither; without them the AWS SDK's default chain (environment, instance role) is used. */
  MEDIA_S3_ACCESS_KEY_ID: optionalText,
  MEDIA_S3_SECRET_ACCESS_KEY: optionalText,
  /** Object key prefix inside the bucket, so two services may share one bucket (default `<service>/images/`). */
  MEDIA_S3_PREFIX: optionalText,
  /**
   * The site's address as its clients reach the gateway (scheme, host, port; no path): an upload's answer names
   * the picture under it, never under the request's `Host` (which the client chooses).
   */
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .regex(/^https?:\/\/[^/?#]+\/*$/, 'an origin: http(s)://host[:port]')
    .transform((url) => url.replace(/\/+$/, ''))
    .default('http://localhost:8080'),
  /**
   * Where picture URLs point: absent, the service's own `/api/v1/<houses|boards>/images/` through the gateway
   * (under `PUBLIC_BASE_URL`); set (e.g. a CDN in front of the bucket, ending with the prefix), that.
   */
  MEDIA_PUBLIC_BASE_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//)
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /** Largest accepted file (the gateway's `UPLOAD_BODY_LIMIT_BYTES` must be a little larger). */
  MEDIA_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** Largest decoded picture accepted (pixels); bigger ones (decompression bombs) are refused before decoding. */
  MEDIA_MAX_INPUT_PIXELS: z.coerce.number().int().min(1).default(50_000_000),
  /** Long side of the stored picture and of its thumbnail, in pixels (never enlarged). */
  MEDIA_MAX_SIDE: z.coerce.number().int().min(64).max(8192).default(2560),
  MEDIA_THUMBNAIL_SIDE: z.coerce.number().int().min(32).max(2048).default(480),
  /** Uploads decoded at once per process (bounds memory); more wait their turn, each at most `MEDIA_ENCODE_WAIT_MS`. */
  MEDIA_CONCURRENT_ENCODES: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * The longest an upload waits for its turn to be decoded before it is refused (503 C0000 with Retry-After); less
   * when its answer is due sooner (`MEDIA_ANSWER_DEADLINE_MS` less the encode's expected time).
   */
  MEDIA_ENCODE_WAIT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  /**
   * The longest from an upload's last byte to its answer. The gateway starts its own timer (`UPSTREAM_TIMEOUT_MS`,
   * 10 s) at the same moment, so this stays below it: an upload that cannot be encoded in this time is refused
   * (503 C0000 with Retry-After) or stopped, and the gateway never answers 504 while the encode goes on (issue 34).
   */
  MEDIA_ANSWER_DEADLINE_MS: z.coerce.number().int().min(1_000).max(120_000).default(8_000),
  /**
   * Uploads one process holds at once, from their first byte to the answer (each up to `MEDIA_MAX_UPLOAD_BYTES`
   * in memory); more are refused before their body is read (429 C0004 with Retry-After).
   */
  MEDIA_MAX_PENDING_UPLOADS: z.coerce.number().int().min(1).max(256).default(4),
  /** libvips worker threads per picture (`sharp.concurrency`). */
  MEDIA_VIPS_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  /** Pictures one member may upload to one service per window (administrators are not counted; 0 turns it off). */
  CEILING_PICTURE_UPLOADS: z.coerce.number().int().min(0).max(1_000_000).default(60),
  CEILING_PICTURE_UPLOADS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3_600),
  /** A picture no post or listing uses is removed this long after its upload. */
  MEDIA_UNUSED_RETENTION_HOURS: z.coerce.number().int().min(1).default(24),
  /** The pictures of a deleted post or listing are removed this many days after its deletion (kept for restoring and review). */
  MEDIA_DELETED_RETENTION_DAYS: z.coerce.number().int().min(0).max(3_650).default(30),
  /** How often the unused pictures are looked for. */
  MEDIA_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1_000).default(3_600_000),
};

const mediaConfigSchema = z.object(mediaConfigShape);
export type MediaSettings = z.output<typeof mediaConfigSchema>;

/** The settings with every default, for tests and tools that build a service without an environment. */
export function defaultMediaSettings(overrides: Partial<MediaSettings> = {}): MediaSettings {
  return { ...mediaConfigSchema.parse({}), ...overrides };
}
