import { blankToUndefined, loadConfig, serviceConfigShape, signingKeyId, verificationKeys } from '@binzip/shared';
import { z } from 'zod';
import { DEFAULT_BCRYPT_COST, DEFAULT_PROFILE_IMAGE_URL } from './domain/context';
import { DEFAULT_PASSWORD_CHECK_MEMORY_SECONDS, defaultPasswordHashConcurrency } from './domain/passwords';
import { DEFAULT_CODE_DIGITS, MAX_CODE_DIGITS, MIN_CODE_DIGITS } from './domain/verification';
import { DEFAULT_SEND_DEADLINE_MS, DEFAULT_SMTP_TIMEOUTS, DEFAULT_TWILIO_TIMEOUT_MS } from './domain/senders';

/** An administrator to create at start-up when missing (ADMIN_BOOTSTRAP is a JSON array of these). */
export const adminSeedSchema = z.strictObject({
  userName: z.string(),
  password: z.string(),
  nick_name: z.string(),
  phone_num: z.string(),
  email: z.string(),
  userType: z.enum(['WEB', 'SERVER']),
});
export type AdminSeed = z.output<typeof adminSeedSchema>;

const adminBootstrap = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === '') return [];
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'ADMIN_BOOTSTRAP is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.array(adminSeedSchema));

/** Milliseconds for an outbound call's timeout: at least 1, at most a minute. */
const timeoutMs = (fallback: number) => z.coerce.number().int().min(1).max(60_000).default(fallback);

const optionalText = z.preprocess(blankToUndefined, z.string().min(1).optional());

/** What `compute` returns, or undefined when it throws (a bad key is reported as a config problem, not thrown). */
function orUndefined<T>(compute: () => T): T | undefined {
  try {
    return compute();
  } catch {
    return undefined;
  }
}

export const configSchema = z
  .object({
    ...serviceConfigShape({ port: 7001, db: 'accounts' }),
    JWT_PRIVATE_KEY: z.string().min(1),
    BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(DEFAULT_BCRYPT_COST),
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(defaultPasswordHashConcurrency),
    PASSWORD_CHECK_MEMORY_SECONDS: z.coerce.number().int().min(0).max(3_600).default(DEFAULT_PASSWORD_CHECK_MEMORY_SECONDS),
    DEFAULT_PROFILE_IMAGE_URL: z.string().url().default(DEFAULT_PROFILE_IMAGE_URL),
    SMS_PROVIDER: z.enum(['local', 'twilio']).default('local'),
    TWILIO_ACCOUNT_SID: optionalText,
    TWILIO_AUTH_TOKEN: optionalText,
    TWILIO_FROM: optionalText,
    MAIL_PROVIDER: z.enum(['local', 'smtp']).default('local'),
    SMTP_URL: optionalText,
    MAIL_FROM: optionalText,
    DEV_OUTBOX_DIR: optionalText,
    SEND_DEADLINE_MS: timeoutMs(DEFAULT_SEND_DEADLINE_MS),
    TWILIO_TIMEOUT_MS: timeoutMs(DEFAULT_TWILIO_TIMEOUT_MS),
    SMTP_CONNECTION_TIMEOUT_MS: timeoutMs(DEFAULT_SMTP_TIMEOUTS.connectionMs),
    SMTP_GREETING_TIMEOUT_MS: timeoutMs(DEFAULT_SMTP_TIMEOUTS.greetingMs),
    SMTP_SOCKET_TIMEOUT_MS: timeoutMs(DEFAULT_SMTP_TIMEOUTS.socketMs),
    ADMIN_BOOTSTRAP: adminBootstrap,
    VERIFICATION_CODE_DIGITS: z.coerce.number().int().min(MIN_CODE_DIGITS).max(MAX_CODE_DIGITS).default(DEFAULT_CODE_DIGITS),
  })
  .superRefine((config, ctx) => {
    // Tokens signed with a key the set lacks would be refused everywhere: the signing key is always in the set.
    const signingKid = orUndefined(() => signingKeyId(config.JWT_PRIVATE_KEY));
    if (signingKid === undefined) ctx.addIssue({ code: 'custom', path: ['JWT_PRIVATE_KEY'], message: 'not an ES256 private key PEM' });
    else if (!orUndefined(() => verificationKeys(config.JWT_PUBLIC_KEY))?.byId.has(signingKid)) {
      ctx.addIssue({ code: 'custom', path: ['JWT_PRIVATE_KEY'], message: `its public key (kid ${signingKid}) is not in JWT_PUBLIC_KEY` });
    }
    if (config.SMS_PROVIDER === 'twilio') {
      for (const key of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const) {
        if (!config[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when SMS_PROVIDER=twilio' });
      }
    }
    if (config.MAIL_PROVIDER === 'smtp') {
      for (const key of ['SMTP_URL', 'MAIL_FROM'] as const) {
        if (!config[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when MAIL_PROVIDER=smtp' });
      }
    }
  });

export type Config = z.output<typeof configSchema>;
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, env);
