import { loadConfig, serviceConfigShape } from '@binzip/shared';
import { mediaConfigShape } from '@binzip/shared/media';
import { z } from 'zod';

export const configSchema = z.object({
  ...serviceConfigShape({ port: 7002, db: 'community' }),
  ...mediaConfigShape,
});

export type Config = z.output<typeof configSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
