import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { accountsStream, createLogger, startConsumers, type EventBus, type RunningConsumer } from '@binzip/shared';
import { houseListingPublished } from '@binzip/events';
import request from 'supertest';
import { bearer, eventually, expectError, publishUserSnapshot, userSnapshot } from '../../../test/support';
import { addMember, startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { openStream as openSse } from '../../../test/support/sse';
import { buildApp } from '../src/service';
import { storeListingNotices } from '../src/domain/listing-notices';
import { LiveNotices } from '../src/domain/live';
import { notificationsConsumers } from '../src/events';
import { initModels, notificationsModels, type NotificationsModels } from '../src/models';

jest.setTimeout(60_000);

let h: ServiceHarness<NotificationsModels>;
let bus: EventBus;
let consumers: RunningConsumer;
const lives: LiveNotices[] = [];
const servers: http.Server[] = [];
/** Two replicas of the service on one store: the consumer's notices reach a stream held by either. */
let first: string;
let second: string;

const ANN = 501;
const BEN = 502;
const SUE = 503;
let houseSeq = 9_000;

/** An SSE client on one of the replicas. */
const openStream = (base: string, headers: Record<string, string> = {}, query = '') => openSse(`${base}/api/v1/notifications/stream${query}`, headers);

async function listen(live: LiveNotices): Promise<string> {
  const app = buildApp({
    connection: h.connection,
    logger: createLogger('stream', 'silent'),
    publicKey: (await import('../../../test/support')).testEnv().publicKey,
    live,
    stream: { heartbeatMs: 1_000, resumeMax: 3 },
  });
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const publishListing = async () => {
  const event = houseListingPublished.build({
    houseId: ++houseSeq,
    authorId: 9,
    title: `스트림 집 ${houseSeq}`,
    rentalType: 'SALE',
    dealState: 'ONGOING',
    houseType: null,
    recommendedTag: [],
    price: 1000,
    province: '제주특별자치도',
    county: null,
    latitude: null,
    longitude: null,
    occurredAt: new Date().toISOString(),
  });
  await bus.publish(houseListingPublished.subject, event, event.eventId);
  return event.houseId;
};

beforeAll(async () => {
  h = await startServiceHarness('notifstream', { models: notificationsModels, initModels, buildApp });
  bus = await h.bus();
  // The user snapshots this file publishes (a suspension) need accounts' stream.
  await bus.ensureStream(accountsStream);
  for (const [id, name] of [
    [ANN, 'ann'],
    [BEN, 'ben'],
    [SUE, 'sue'],
  ] as const) {
    await addMember(h.connection, name, { id });
    await request(h.app)
      .post('/api/v1/saved-searches')
      .set('Authorization', bearer({ userId: id }))
      .send({ name: '제주', province: '제주' })
      .expect(200);
  }
  for (let i = 0; i < 2; i++) lives.push(new LiveNotices(bus, createLogger('live', 'silent')).start());
  first = await listen(lives[0]);
  second = await listen(lives[1]);
  consumers = await startConsumers(bus, notificationsConsumers(h.ctx, { EVENT_MAX_DELIVER: 5, EVENT_BACKOFF_MS: [500] }, lives[0]));
  await bus.connection.flush();
});

afterAll(async () => {
  await consumers?.stop();
  lives.forEach((live) => live.stop());
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await h.close();
});

it('refuses a stream without a token (401), with an expired token, or with a used or unknown ticket', async () => {
  expectError(await request(h.app).get('/api/v1/notifications/stream'), 401, 'J0000');
  expectError(
    await request(h.app)
      .get('/api/v1/notifications/stream')
      .set('Authorization', bearer({ userId: ANN }, -10)),
    401,
    'J0002',
  );
  expectError(await request(h.app).get('/api/v1/notifications/stream?ticket=nope'), 401, 'J0004');
  expectError(await request(h.app).post('/api/v1/notifications/stream/ticket'), 401, 'J0000');
});

it('sends each new notice once, as the feed item with its id, on a stream held by another replica; heartbeats under 10 s', async () => {
  const stream = openStream(second, { Authorization: bearer({ userId: ANN }) });
  await eventually(() => stream.status() === 200 && stream.body().includes('retry:'));
  const houseId = await publishListing();
  const [received] = await eventually(() => (stream.notifications().length > 0 ? stream.notifications() : undefined), 5_000);
  const item = JSON.parse(received.data ?? '{}') as { notification_id: number; kind: string; house_id: number };
  expect(item).toMatchObject({ kind: 'LISTING_MATCH', house_id: houseId });
  expect(received.id).toBe(String(item.notification_id));
  await eventually(() => stream.events.some((e) => e.comment === 'ping'), 3_000);
  // A second notice: one more event, the first not again.
  await publishListing();
  await eventually(() => stream.notifications().length === 2, 5_000);
  await new Promise((r) => setTimeout(r, 300));
  expect(new Set(stream.notifications().map((e) => e.id)).size).toBe(2);
  stream.close();
});

it('a single-use ticket opens the stream once (the browser EventSource way)', async () => {
  const res = await request(h.app)
    .post('/api/v1/notifications/stream/ticket')
    .set('Authorization', bearer({ userId: BEN }));
  expect(res.status).toBe(200);
  const { ticket } = res.body.data as { ticket: string };
  const stream = openStream(first, {}, `?ticket=${ticket}`);
  await eventually(() => stream.status() === 200);
  const again = openStream(second, {}, `?ticket=${ticket}`);
  await eventually(() => again.status() === 401);
  expect(again.body()).toContain('J0004');
  await publishListing();
  await eventually(() => stream.notifications().length === 1, 5_000);
  stream.close();
  // Past 30 s a ticket is refused too.
  const late = (
    await request(h.app)
      .post('/api/v1/notifications/stream/ticket')
      .set('Authorization', bearer({ userId: BEN }))
  ).body.data.ticket as string;
  h.clock.advance(31_000);
  expectError(await request(h.app).get(`/api/v1/notifications/stream?ticket=${late}`), 401, 'J0004');
});

it('a reconnect with Last-Event-ID gets what it missed, bounded, and no duplicates', async () => {
  const stream = openStream(first, { Authorization: bearer({ userId: SUE }) });
  await eventually(() => stream.status() === 200);
  await publishListing();
  const [seen] = await eventually(() => (stream.notifications().length === 1 ? stream.notifications() : undefined), 5_000);
  stream.close();
  // Two missed while away.
  const had = await h.models.notifications.countDocuments({ recipientId: SUE }).exec();
  await publishListing();
  await publishListing();
  await eventually(async () => (await h.models.notifications.countDocuments({ recipientId: SUE }).exec()) === had + 2);
  const resumed = openStream(second, { Authorization: bearer({ userId: SUE }), 'Last-Event-ID': seen.id ?? '' });
  await eventually(() => resumed.notifications().length === 2, 5_000);
  await new Promise((r) => setTimeout(r, 300));
  expect(resumed.notifications().map((e) => Number(e.id))).toEqual(
    (
      await h.models.notifications
        .find({ recipientId: SUE, _id: { $gt: Number(seen.id) } })
        .sort({ _id: 1 })
        .lean()
        .exec()
    ).map((n) => n._id),
  );
  resumed.close();
  // Far behind: the newest 3 (the bound) and a resync event pointing at the feed.
  for (let i = 0; i < 4; i++)
    await storeListingNotices(
      h.ctx,
      { kind: 'LISTING_MATCH', eventId: `missed-${i}`, houseId: 99_000 + i, title: '놓친 집', occurredAt: new Date().toISOString() },
      [{ userId: SUE }],
    );
  const far = openStream(first, { Authorization: bearer({ userId: SUE }), 'Last-Event-ID': seen.id ?? '' });
  await eventually(() => far.notifications().length === 3, 5_000);
  expect(far.events.some((e) => e.event === 'resync')).toBe(true);
  far.close();
});

it('ends the stream with a reason when the token expires or the member is suspended', async () => {
  const expiring = openStream(first, { Authorization: bearer({ userId: BEN }, 2) });
  await eventually(() => expiring.events.some((e) => e.event === 'end'), 6_000);
  expect(JSON.parse(expiring.events.find((e) => e.event === 'end')?.data ?? '{}')).toEqual({ reason: 'TOKEN_EXPIRED' });

  const suspended = openStream(second, { Authorization: bearer({ userId: ANN }) });
  await eventually(() => suspended.status() === 200);
  await publishUserSnapshot(bus, userSnapshot(ANN, 'ann', { status: 'SUSPENDED', version: 50 }));
  await eventually(() => suspended.events.some((e) => e.event === 'end'), 5_000);
  expect(JSON.parse(suspended.events.find((e) => e.event === 'end')?.data ?? '{}')).toEqual({ reason: 'SUSPENDED' });
});
