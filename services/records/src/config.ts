import { loadConfig, serviceConfigShape } from '@binzip/shared';
import { z } from 'zod';

export const configSchema = z.object({
  ...serviceConfigShape({ port: 7004, db: 'records' }),
  /** How often the outbox relay retries comment events that could not be published yet. */
});
export type Config = z.output<typeof configSchema>;
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
