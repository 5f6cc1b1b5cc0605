/**
 * Web Push (issue 38) with the real sender (web-push) against the local push sink (scripts/lib/push-sink.ts: a
 * real https push service that checks VAPID and decrypts), the real store and NATS: subscriptions per device,
 * validated; every stored notice pushed as its feed item to each of the member's devices; a kind turned off is
 * not pushed; a subscription the push service answers 410 (or 404) for is removed.
 */
import { createLogger, startConsumers, type EventBus, type RunningConsumer } from '@binzip/shared';
import { houseListingPublished } from '@binzip/events';
import request from 'supertest';
import webpush from 'web-push';
import { startPushSink, type PushSink } from '../../../scripts/lib/push-sink';
import { bearer, eventually, expectError, testEnv } from '../../../test/support';
import { addMember, startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { WebPushSender } from '../src/domain/push-sender';
import { MAX_PUSH_SUBSCRIPTIONS } from '../src/domain/push';
import { notificationsConsumers } from '../src/events';
import { initModels, notificationsModels, type NotificationsModels } from '../src/models';
import { buildApp } from '../src/service';

jest.setTimeout(60_000);

const ANN = 601;
const BEN = 602;
const SUBJECT = 'mailto:ops@binzip.test';

let sink: PushSink;
let sender: WebPushSender;
let vapid: webpush.VapidKeys;
let h: ServiceHarness<NotificationsModels>;
let bus: EventBus;
let consumers: RunningConsumer;
let houseSeq = 61_000;

const as = (userId: number) => bearer({ userId });
const subscribe = (userId: number, body: object) => request(h.app).post('/api/v1/notifications/push/subscriptions').set('Authorization', as(userId)).send(body);
const unsubscribe = (userId: number, endpoint: string) =>
  request(h.app).delete('/api/v1/notifications/push/subscriptions').set('Authorization', as(userId)).send({ endpoint });
const payloadsTo = (endpoint: string) => sink.received.filter((r) => r.endpoint === endpoint).map((r) => JSON.parse(r.payload) as Record<string, unknown>);

/** A listing in 제주 (both members' saved searches match it), published as houses' outbox would. */
async function publishListing(): Promise<number> {
  const event = houseListingPublished.build({
    houseId: ++houseSeq,
    authorId: 9,
    title: `푸시 집 ${houseSeq}`,
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
}

beforeAll(async () => {
  sink = await startPushSink();
  vapid = webpush.generateVAPIDKeys();
  sender = new WebPushSender({ ...vapid, subject: SUBJECT, endpointHosts: ['127.0.0.1'], ttlSeconds: 3_600, timeoutMs: 5_000, ca: sink.ca });
  h = await startServiceHarness('notifpush', { models: notificationsModels, initModels, buildApp }, { extra: { push: sender } });
  bus = await h.bus();
  consumers = await startConsumers(bus, notificationsConsumers({ ...h.ctx, push: sender }, { EVENT_MAX_DELIVER: 5, EVENT_BACKOFF_MS: [500] }));
  for (const [id, name] of [
    [ANN, 'ann'],
    [BEN, 'ben'],
  ] as const) {
    await addMember(h.connection, name, { id });
    await request(h.app).post('/api/v1/saved-searches').set('Authorization', as(id)).send({ name: '제주', province: '제주' }).expect(200);
  }
});

afterAll(async () => {
  await consumers?.stop();
  sender?.close();
  await h?.close();
  await sink?.stop();
});

it('answers the VAPID public key; without keys it answers null and takes no subscription', async () => {
  const key = await request(h.app).get('/api/v1/notifications/push/key').set('Authorization', as(ANN));
  expect(key.body).toEqual({ code: 'SUCCESS', message: '성공', data: { publicKey: vapid.publicKey } });
  expectError(await request(h.app).get('/api/v1/notifications/push/key'), 401, 'J0000');

  const unpushed = buildApp({ connection: h.connection, logger: createLogger('push', 'silent'), publicKey: testEnv().publicKey });
  expect((await request(unpushed).get('/api/v1/notifications/push/key').set('Authorization', as(ANN))).body.data).toEqual({ publicKey: null });
  expectError(await request(unpushed).post('/api/v1/notifications/push/subscriptions').set('Authorization', as(ANN)).send(sink.subscribe()), 404, 'C0001');
});

it('refuses a malformed subscription naming the field in Korean, and stores nothing', async () => {
  const good = sink.subscribe();
  const cases: Array<[object, string]> = [
    [{ keys: good.keys }, '푸시 주소 값이 누락되었습니다.'],
    [{ ...good, endpoint: good.endpoint.replace('https:', 'http:') }, '푸시 주소 값이 https 주소가 아닙니다.'],
    [{ ...good, endpoint: 'https://push.example.com/send/1' }, '푸시 주소 값이 이 서버가 보내는 푸시 서비스의 https 주소가 아닙니다.'],
    [{ ...good, keys: { ...good.keys, p256dh: 'AAAA' } }, '공개 키(p256dh) 값은 P-256 공개 키 65바이트의 base64url이어야 합니다.'],
    [{ ...good, keys: { p256dh: good.keys.p256dh } }, '인증 비밀(auth) 값이 누락되었습니다.'],
    [{ ...good, expirationTime: 'soon' }, '만료 시각 값이 올바르지 않습니다.'],
    [{ ...good, device: 'phone' }, 'device 필드는 허용되지 않습니다.'],
  ];
  for (const [body, message] of cases) {
    const res = await subscribe(ANN, body);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { code: 'C0002', message } });
  }
  expect(await h.models.pushSubscriptions.countDocuments({}).exec()).toBe(0);
  expectError(await request(h.app).post('/api/v1/notifications/push/subscriptions').send(good), 401, 'J0000');
});

it('pushes each new notice to every device of its member, encrypted, VAPID-signed, as the feed item', async () => {
  const phone = sink.subscribe();
  const laptop = sink.subscribe();
  for (const device of [phone, laptop]) expect((await subscribe(ANN, device)).body).toEqual({ code: 'SUCCESS', message: '성공', data: device.endpoint });
  const houseId = await publishListing();
  await eventually(() => payloadsTo(phone.endpoint).length === 1 && payloadsTo(laptop.endpoint).length === 1, 10_000);
  const feed = await request(h.app).get('/api/v1/notifications/feed?kind=LISTING_MATCH&size=1').set('Authorization', as(ANN));
  const [item] = feed.body.data.notifications.content as Array<Record<string, unknown>>;
  expect(item).toMatchObject({ kind: 'LISTING_MATCH', house_id: houseId });
  expect(payloadsTo(phone.endpoint)).toEqual([item]);
  expect(payloadsTo(laptop.endpoint)).toEqual([item]);
  const [sent] = sink.received.filter((r) => r.endpoint === phone.endpoint);
  expect(sent.vapid).toMatchObject({ sub: SUBJECT, k: vapid.publicKey, aud: sink.url });
  expect(sent.ttl).toBe(3_600);
  // Once: a second listing is one more push per device, the first not again.
  await publishListing();
  await eventually(() => payloadsTo(phone.endpoint).length === 2 && payloadsTo(laptop.endpoint).length === 2, 10_000);
  await new Promise((r) => setTimeout(r, 300));
  expect(new Set(payloadsTo(phone.endpoint).map((p) => p.notification_id)).size).toBe(2);
  await unsubscribe(ANN, laptop.endpoint).expect(200);
  await unsubscribe(ANN, phone.endpoint).expect(200);
});

it('pushes nothing of a kind the member turned off', async () => {
  const annPhone = sink.subscribe();
  const benPhone = sink.subscribe();
  await subscribe(ANN, annPhone).expect(200);
  await subscribe(BEN, benPhone).expect(200);
  await request(h.app).put('/api/v1/notifications/preferences').set('Authorization', as(BEN)).send({ LISTING_MATCH: false }).expect(200);
  const houseId = await publishListing();
  await eventually(() => payloadsTo(annPhone.endpoint).some((p) => p.house_id === houseId), 10_000);
  await new Promise((r) => setTimeout(r, 500));
  expect(payloadsTo(benPhone.endpoint)).toEqual([]);
  await request(h.app).put('/api/v1/notifications/preferences').set('Authorization', as(BEN)).send({ LISTING_MATCH: true }).expect(200);
  await unsubscribe(ANN, annPhone.endpoint).expect(200);
  await unsubscribe(BEN, benPhone.endpoint).expect(200);
});

it("removes a subscription the push service answers 410 for; the member's other devices still get the notice", async () => {
  const old = sink.subscribe();
  const current = sink.subscribe();
  await subscribe(ANN, old).expect(200);
  await subscribe(ANN, current).expect(200);
  sink.gone(old.endpoint);
  const houseId = await publishListing();
  await eventually(() => payloadsTo(current.endpoint).some((p) => p.house_id === houseId), 10_000);
  await eventually(async () => (await h.models.pushSubscriptions.exists({ _id: old.endpoint }).exec()) === null, 5_000);
  expect(sink.refused.filter((r) => r.endpoint === old.endpoint).map((r) => r.status)).toEqual([410]);
  expect(await h.models.pushSubscriptions.exists({ _id: current.endpoint }).exec()).not.toBeNull();
  // The next notice goes to the remaining device only: the gone one is not tried again.
  await publishListing();
  await eventually(() => payloadsTo(current.endpoint).length === 2, 10_000);
  expect(sink.refused.filter((r) => r.endpoint === old.endpoint)).toHaveLength(1);
  await unsubscribe(ANN, current.endpoint).expect(200);
});

it("unsubscribes only the caller's own device (404 C0001 otherwise); one device per endpoint; at most the newest devices", async () => {
  const device = sink.subscribe();
  await subscribe(ANN, device).expect(200);
  expectError(await unsubscribe(BEN, device.endpoint), 404, 'C0001');
  expect(await h.models.pushSubscriptions.exists({ _id: device.endpoint, userId: ANN }).exec()).not.toBeNull();
  // The same browser signed in as another member: the device is his now.
  await subscribe(BEN, device).expect(200);
  expect(await h.models.pushSubscriptions.countDocuments({ _id: device.endpoint }).exec()).toBe(1);
  expectError(await unsubscribe(ANN, device.endpoint), 404, 'C0001');
  expect((await unsubscribe(BEN, device.endpoint)).body).toEqual({ code: 'SUCCESS', message: '성공', data: device.endpoint });
  expectError(await unsubscribe(BEN, device.endpoint), 404, 'C0001');
  const bad = await request(h.app).delete('/api/v1/notifications/push/subscriptions').set('Authorization', as(BEN)).send({});
  expect(bad.body).toEqual({ code: 'C0002', message: '푸시 주소 값이 누락되었습니다.' });

  const devices = Array.from({ length: MAX_PUSH_SUBSCRIPTIONS + 2 }, () => sink.subscribe());
  for (const [i, d] of devices.entries()) {
    h.clock.advance(1_000 * (i + 1));
    await subscribe(ANN, d).expect(200);
  }
  const kept = await h.models.pushSubscriptions.find({ userId: ANN }).lean().exec();
  expect(kept.map((d) => d._id).sort()).toEqual(
    devices
      .slice(2)
      .map((d) => d.endpoint)
      .sort(),
  );
});
