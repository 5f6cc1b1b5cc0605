import { loadConfig, serviceConfigShape } from '@binzip/shared';
import { z } from 'zod';

/** The common service environment (OUTBOX_INTERVAL_MS paces the comment relay); records adds nothing of its own. */
export const configSchema = z.object({
  ...serviceConfigShape({ port: 7004, db: 'records' }),
});
export type Config = z.output<typeof configSchema>;
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
