import { randomBytes } from 'node:crypto';
import { signAccessToken, type AuthClaims } from '@binzip/shared';

/**
 * Per-test-file isolation on the shared stores: every call gives fresh database and NATS prefix names.
 */
export function isolatedNames(label: string): { db: string; natsPrefix: string } {
  const suffix = `${process.env.BINZIP_TEST_RUN ?? 'r'}_${randomBytes(3).toString('hex')}`;
  const safe = label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20);
  return { db: `t_${safe}_${suffix}`, natsPrefix: `t${safe}${suffix}`.replace(/_/g, '') };
}

export function testEnv(): { mongoUri: string; natsUrl: string; publicKey: string; privateKey: string } {
  const { MONGODB_URI, NATS_URL, JWT_PUBLIC_KEY, JWT_PRIVATE_KEY } = process.env;
  if (!MONGODB_URI || !NATS_URL || !JWT_PUBLIC_KEY || !JWT_PRIVATE_KEY) throw new Error('test stores not started: run through jest (global setup)');
  return { mongoUri: MONGODB_URI, natsUrl: NATS_URL, publicKey: JWT_PUBLIC_KEY, privateKey: JWT_PRIVATE_KEY };
}

/** An `Authorization` header value for a user, signed with the run's test key. */
export function bearer(claims: Partial<AuthClaims> & { userId: number }, ttlSeconds?: number): string {
  const full: AuthClaims = { userName: `user${claims.userId}`, authority: 'USER', userType: 'NONE', ...claims };
  return `Bearer ${signAccessToken(full, testEnv().privateKey, ttlSeconds)}`;
}

/** Polls until `check` returns a value that is not undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
