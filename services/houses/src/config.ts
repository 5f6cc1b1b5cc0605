import { blankToUndefined, loadConfig, serviceConfigShape } from '@binzip/shared';
import { mediaConfigShape } from '@binzip/shared/media';
import { z } from 'zod';
import { KakaoGeocoder, localGeocoder, type Geocoder } from './domain/geocoder';

const optionalText = z.preprocess(blankToUndefined, z.string().min(1).optional());

/** Finding listings' points from their addresses (issue 39; README "Places"). */
const geocoderShape = {
  /** `kakao` (Kakao Local, needs `KAKAO_REST_API_KEY`), `local` (deterministic, no network) or `none`; default kakao with a key, else local. */
  GEOCODER: z.preprocess(blankToUndefined, z.enum(['kakao', 'local', 'none']).optional()),
  KAKAO_REST_API_KEY: optionalText,
  KAKAO_LOCAL_URL: z.preprocess(blankToUndefined, z.url().default('https://dapi.kakao.com')),
  GEOCODER_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(3_000),
  GEOCODER_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  GEOCODER_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(600),
  GEOCODER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
};

export const configSchema = z
  .object({ ...serviceConfigShape({ port: 7003, db: 'houses' }), ...mediaConfigShape, ...geocoderShape })
  .superRefine((config, ctx) => {
    if (config.GEOCODER === 'kakao' && !config.KAKAO_REST_API_KEY)
      ctx.addIssue({ code: 'custom', path: ['KAKAO_REST_API_KEY'], message: 'required with GEOCODER=kakao' });
  });
export type Config = z.output<typeof configSchema>;
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);

/** The geocoder the settings choose, or undefined for `none`. */
export function geocoderOf(config: Config): Geocoder | undefined {
  const choice = config.GEOCODER ?? (config.KAKAO_REST_API_KEY ? 'kakao' : 'local');
  if (choice === 'none') return undefined;
  if (choice === 'local') return localGeocoder;
  return new KakaoGeocoder({
    key: config.KAKAO_REST_API_KEY ?? '',
    baseUrl: config.KAKAO_LOCAL_URL,
    timeoutMs: config.GEOCODER_TIMEOUT_MS,
    retries: config.GEOCODER_RETRIES,
    perMinute: config.GEOCODER_PER_MINUTE,
  });
}
