import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import {
  EventBus,
  createLogger,
  createServiceApp,
  followSessionRevocations,
  handle,
  revokedSessions,
  sessionsRevoked,
  sessionsRevokedEvent,
  signAccessToken,
  type RunningConsumer,
  sessionsStream,
} from '../src';
import { startNatsServer } from '../../scripts/lib/nats';
import { eventually, expectError, isolatedNames, testEnv } from '../../test/support';

const logger = createLogger('revocations-test', 'silent');
const names = isolatedNames('revocations');
let publisher: EventBus;
let follower: EventBus;
let following: RunningConsumer | undefined;

beforeAll(async () => {
  publisher = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'revocations-publisher', logger });
  follower = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'revocations-follower', logger });
});

afterAll(async () => {
  await following?.stop();
  await follower.close();
  await publisher.deleteStreams();
  await publisher.close();
});

const app = createServiceApp({
  service: 'revocations-test',
  logger,
  publicKey: testEnv().publicKey,
  routes: (router: express.Express) => {
    router.get(
      '/me',
      handle(async (req) => req.auth?.userId ?? null),
    );
  },
});
const tokenOf = (sessionId: string) =>
  `Bearer ${signAccessToken({ userId: 7, userName: 'user7', authority: 'USER', userType: 'NONE', sessionId }, testEnv().privateKey)}`;

describe('sessions.revoked over NATS', () => {
  it('a revocation published before the process follows, and one published after, are both refused within 2 s', async () => {
    const before = randomUUID();
    const after = randomUUID();
    const untouched = randomUUID();
    await publisher.ensureStream(sessionsStream);
    const early = sessionsRevokedEvent(7, [before], new Date());
    await publisher.publish(sessionsRevoked.subject, early, early.eventId);
    for (const sid of [before, after, untouched]) expect((await request(app).get('/me').set('Authorization', tokenOf(sid))).status).toBe(200);

    following = await followSessionRevocations(follower);
    await eventually(() => revokedSessions.has(before), 2_000);
    expectError(await request(app).get('/me').set('Authorization', tokenOf(before)), 401, 'J0004');

    const late = sessionsRevokedEvent(7, [after], new Date());
    const publishedAt = Date.now();
    await publisher.publish(sessionsRevoked.subject, late, late.eventId);
    await eventually(async () => (await request(app).get('/me').set('Authorization', tokenOf(after))).status === 401, 2_000, 20);
    expect(Date.now() - publishedAt).toBeLessThan(2_000);
    expect((await request(app).get('/me').set('Authorization', tokenOf(untouched))).status).toBe(200);
  });

  it('ignores a malformed revocation and keeps following', async () => {
    const sid = randomUUID();
    await publisher.publish(sessionsRevoked.subject, { v: 1, sessionIds: 'not a list' }, randomUUID());
    const event = sessionsRevokedEvent(8, [sid], new Date());
    await publisher.publish(sessionsRevoked.subject, event, event.eventId);
    await eventually(() => revokedSessions.has(sid), 2_000);
  });
});

describe("sessions.revoked through a NATS restart (a server of this test's own)", () => {
  it('a process keeps following after the broker restarted: a revocation published then is refused within 2 s', async () => {
    const storeDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-revocations-restart-'));
    const nats = await startNatsServer({ storeDir: path.join(storeDir, 'nats') });
    const own = { url: nats.uri, prefix: names.natsPrefix };
    const ownPublisher = await EventBus.connect({ ...own, name: 'restart-publisher', logger });
    const ownFollower = await EventBus.connect({ ...own, name: 'restart-follower', logger });
    let followingOwn: RunningConsumer | undefined;
    try {
      followingOwn = await followSessionRevocations(ownFollower);
      const before = sessionsRevokedEvent(9, [randomUUID()], new Date());
      await ownPublisher.publish(sessionsRevoked.subject, before, before.eventId);
      await eventually(() => revokedSessions.has(before.sessionIds[0]), 2_000);

      // The broker forgets the follower's ephemeral consumer; the follower must make a new one.
      await nats.stop();
      await nats.restart();
      const after = sessionsRevokedEvent(9, [randomUUID()], new Date());
      await eventually(async () => {
        await ownPublisher.publish(sessionsRevoked.subject, after, after.eventId);
        return true;
      }, 10_000);
      const publishedAt = Date.now();
      await eventually(async () => (await request(app).get('/me').set('Authorization', tokenOf(after.sessionIds[0]))).status === 401, 2_000, 20);
      expect(Date.now() - publishedAt).toBeLessThan(2_000);
    } finally {
      await followingOwn?.stop();
      await ownFollower.close();
      await ownPublisher.close();
      await nats.stop();
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
