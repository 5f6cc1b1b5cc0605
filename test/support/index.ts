import { randomBytes, randomUUID } from 'node:crypto';
import { connectMongo, signAccessToken, userSnapshots, type AuthClaims, type EventBus, type UserSnapshotV1 } from '@binzip/shared';
import type { Connection } from 'mongoose';

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

/** A connection to a database of the run's MongoDB (a name from `isolatedNames`); `dropTestDb` removes it. */
export function connectTestDb(db: string): Promise<Connection> {
  return connectMongo(testEnv().mongoUri, db);
}

/** Drops a test database and closes its connection; skips a connection that was never opened. */
export async function dropTestDb(connection: Connection | undefined): Promise<void> {
  await connection?.dropDatabase();
  await connection?.close();
}

/** An `accounts.user.<id>` snapshot as accounts publishes it: version 1, an ordinary active user, unless overridden. */
export function userSnapshot(id: number, nickName: string, overrides: Partial<UserSnapshotV1> = {}): UserSnapshotV1 {
  return {
    v: 1,
    eventId: randomUUID(),
    id,
    userName: `user${id}`,
    nick_name: nickName,
    userType: 'NONE',
    authority: 'USER',
    status: 'ACTIVE',
    version: 1,
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

/** Publishes a snapshot on its `accounts.user.<id>` subject, with its eventId as the message id. */
export async function publishUserSnapshot(bus: EventBus, snapshot: UserSnapshotV1): Promise<void> {
  await bus.publish(userSnapshots.subjectOf(snapshot), snapshot, snapshot.eventId);
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
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${lastError instanceof Error ? `: ${lastError.message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The shape every error answer has: the status, the code, a Korean message, and no `data`. */
export function expectError(res: { status: number; body: unknown }, status: number, code: string, message?: string): void {
  const body = res.body as { code?: unknown; message?: unknown };
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body).not.toHaveProperty('data');
  expect(typeof body.message).toBe('string');
  if (message !== undefined) expect(body.message).toBe(message);
}

/** The same session's claims in a token that expired a minute ago (what a tab left open for an hour holds). */
export function expiredCopyOf(token: string): string {
  const claims = JSON.parse(Buffer.from(token.replace(/^Bearer /, '').split('.')[1], 'base64url').toString('utf8')) as {
    sub: string;
    userName: string;
    authority: AuthClaims['authority'];
    userType: AuthClaims['userType'];
    sid?: string;
  };
  const sessionId = claims.sid === undefined ? {} : { sessionId: claims.sid };
  return `Bearer ${signAccessToken({ userId: Number(claims.sub), userName: claims.userName, authority: claims.authority, userType: claims.userType, ...sessionId }, testEnv().privateKey, -60)}`;
}
