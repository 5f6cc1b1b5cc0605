/**
 * Issue 38: notifications' store goes away while listings are approved, and comes back on the same address.
 * Meanwhile a member's requests get the clear envelope (503 C0000, within the store's 5 s server selection), never
 * a 500 or a hang: the feed, a stream ticket, a new stream. The stream already open stays open (its heartbeats go
 * on). houses (on the run's store) keeps approving; notifications' durable consumer fails to store the alerts,
 * naks them, and stores each once when the store is back; the open stream then sends each once.
 * notifications runs on a persistent MongoDB-protocol server of its own (tools/dev-mongo, as
 * test/e2e/store-outage.e2e.test.ts starts it) that this test stops and starts; NATS is the run's.
 */
import { STREAMS } from '@binzip/events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, EventBus, startConsumers, startOutboxRelay, type OutboxRelay, type RunningConsumer } from '@binzip/shared';
import request from 'supertest';
import { startMongo, type RunningStore } from '../scripts/lib/mongo';
import { freePort } from '../scripts/lib/server-process';
import { housesOutbox } from '../services/houses/src/events';
import { validListing } from '../services/houses/test/helpers';
import { buildApp as housesApp } from '../services/houses/src/service';
import { housesModels, initModels as initHouses, type HousesModels } from '../services/houses/src/models';
import { LiveNotices } from '../services/notifications/src/domain/live';
import { notificationsConsumers } from '../services/notifications/src/events';
import { initModels as initNotifications, notificationsModels, type NotificationsModels } from '../services/notifications/src/models';
import { buildApp as notificationsApp } from '../services/notifications/src/service';
import { bearer, eventually, testEnv } from './support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness } from './support/service';
import { openStream, type SseClient } from './support/sse';

jest.setTimeout(150_000);

const logger = createLogger('alerts-store-outage', 'silent');
const LISTINGS = 6;
const MEMBER = 41;
const UNAVAILABLE = { code: 'C0000', message: '서비스를 일시적으로 사용할 수 없습니다.' };

let dataDir: string;
let port: number;
let store: RunningStore | undefined;

/** A persistent store on a fixed port (the run's shared store must stay up), so data survives the restart. */
async function startStore(): Promise<RunningStore> {
  const sharedUri = process.env.MONGODB_URI;
  delete process.env.MONGODB_URI;
  try {
    return await startMongo({ persistent: true, dataDir, port });
  } finally {
    process.env.MONGODB_URI = sharedUri;
  }
}

/** The harness on our store: the kit connects to the run's store named by MONGODB_URI. */
async function onOwnStore<T>(start: () => Promise<T>): Promise<T> {
  const sharedUri = process.env.MONGODB_URI;
  process.env.MONGODB_URI = store!.uri;
  try {
    return await start();
  } finally {
    process.env.MONGODB_URI = sharedUri;
  }
}

/** Answers within the store's server selection timeout (5 s), well inside the gateway's 10 s. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = Date.now();
  const result = await work();
  return { ms: Date.now() - started, result };
}

test('the notifications store away while listings are approved: clear 503s meanwhile, the open stream stays, every alert once after it is back', async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerts-store-outage-'));
  port = await freePort();
  store = await startStore();
  let houses: ServiceHarness<HousesModels> | undefined;
  let notifications: ServiceHarness<NotificationsModels> | undefined;
  let bus: EventBus | undefined;
  let live: LiveNotices | undefined;
  let relay: OutboxRelay | undefined;
  let consumers: RunningConsumer | undefined;
  let server: http.Server | undefined;
  let stream: SseClient | undefined;
  try {
    houses = await startServiceHarness('alertsstorehouses', { models: housesModels, initModels: initHouses, buildApp: housesApp });
    bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: houses.names.natsPrefix, name: 'alerts-store-outage', logger });
    await bus.ensureStreams(STREAMS);
    live = new LiveNotices(bus, logger).start();
    const hub = live;
    notifications = await onOwnStore(() =>
      startServiceHarness(
        'alertsstorenotif',
        { models: notificationsModels, initModels: initNotifications, buildApp: notificationsApp },
        { extra: { live: hub, stream: { heartbeatMs: 1_000, resumeMax: 100 } } },
      ),
    );
    relay = startOutboxRelay(bus, housesOutbox(houses.models), { logger, intervalMs: 300 });
    consumers = await startConsumers(bus, notificationsConsumers(notifications.ctx, { EVENT_MAX_DELIVER: 50, EVENT_BACKOFF_MS: [500] }, live));
    server = http.createServer(notifications.app);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const author = await addMember(houses.connection, '주민', { id: 42 });
    const admin = await addAdmin(houses.connection, '관리자', { id: 43 });
    await addMember(notifications.connection, '알림회원', { id: MEMBER });
    const member = bearer({ userId: MEMBER });
    expect((await request(notifications.app).post('/api/v1/saved-searches').set('Authorization', member).send({ name: '강원', province: '강원' })).status).toBe(
      200,
    );
    const houseIds: number[] = [];
    for (let i = 0; i < LISTINGS; i++) {
      const res = await request(houses.app)
        .post('/api/v1/houses')
        .set('Authorization', author.token)
        .send(validListing({ title: `저장소 중단 중 매물 ${i}` }));
      expect(res.status).toBe(200);
      houseIds.push(res.body.data as number);
    }

    stream = openStream(`${base}/api/v1/notifications/stream`, { Authorization: member });
    const open = stream;
    await eventually(() => open.status() === 200 && open.body().includes('retry:'));

    await store.stop();
    for (const houseId of houseIds) {
      const res = await request(houses.app).put(`/api/v1/houses/apply/${houseId}`).set('Authorization', admin.token).send({ approve: true });
      expect(res.status).toBe(200);
    }
    await relay.kick();

    // The member's requests meanwhile: the clear envelope, quickly.
    for (const [method, url] of [
      ['get', '/api/v1/notifications/feed'],
      ['post', '/api/v1/notifications/stream/ticket'],
      ['get', '/api/v1/notifications/stream'],
      ['get', '/api/v1/saved-searches'],
    ] as const) {
      const { ms, result } = await timed(() => request(notifications!.app)[method](url).set('Authorization', member));
      expect({ url, status: result.status, body: result.body }).toEqual({ url, status: 503, body: UNAVAILABLE });
      expect(ms).toBeLessThan(9_000);
    }
    // The events were published and tried; nothing could be stored, and the open stream is still there.
    await eventually(async () => (await houses!.models.houses.countDocuments({ 'pendingEvents.0': { $exists: true } }).exec()) === 0, 20_000, 200);
    const pings = open.events.filter((e) => e.comment === 'ping').length;
    await eventually(() => open.events.filter((e) => e.comment === 'ping').length >= pings + 2, 5_000);
    expect(open.closed()).toBe(false);
    expect(open.notifications()).toEqual([]);

    store = await startStore();
    await eventually(() => open.notifications().length >= LISTINGS, 90_000, 200);
    await new Promise((r) => setTimeout(r, 1_500));
    const received = open.notifications().map((e) => JSON.parse(e.data ?? '{}') as { kind: string; house_id: number; notification_id: number });
    expect(received.map((n) => n.kind)).toEqual(Array<string>(LISTINGS).fill('LISTING_MATCH'));
    expect(received.map((n) => n.house_id).sort()).toEqual([...houseIds].sort());
    expect(new Set(received.map((n) => n.notification_id)).size).toBe(LISTINGS);
    const stored = await notifications.models.notifications.find({ recipientId: MEMBER, kind: 'LISTING_MATCH' }).lean().exec();
    expect(stored.map((n) => n.targetId).sort()).toEqual([...houseIds].sort());
    // And the member's requests are answered again.
    expect((await request(notifications.app).post('/api/v1/notifications/stream/ticket').set('Authorization', member)).status).toBe(200);
  } finally {
    stream?.close();
    await consumers?.stop().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    live?.stop();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    // The streams under this test's prefix, on the run's NATS.
    await bus?.deleteStreams().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await houses?.close();
    await notifications?.close().catch(() => undefined);
    await store?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
