import { startConsumers, type EventBus, type RunningConsumer } from '@binzip/shared';
import { houseListingChanged, houseListingDecided, houseListingPublished, recordCommentCreated, type HouseListingPublishedV1 } from '@binzip/events';
import type { Express } from 'express';
import request from 'supertest';
import { bearer, eventually, expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { matchingMembers } from '../src/domain/listing-notices';
import { notificationsConsumers } from '../src/events';
import { initModels, notificationsModels, type NotificationDoc, type NotificationsModels } from '../src/models';

let h: ServiceHarness<NotificationsModels>;
let app: Express;
let bus: EventBus;
let consumers: RunningConsumer;
const delivered: NotificationDoc[] = [];

const ANN = 401; // 강원 + SALE
const BEN = 402; // 경상
const CAROL = 403; // 강원, alerts off
const DAN = 404; // 20 km around Gangneung
const AGENT = 405; // the listings' author, with a matching search of his own
let admin: TestPerson;
let houseSeq = 7_000;

const auth = (userId: number) => ({ Authorization: bearer({ userId }) });
const save = async (userId: number, body: object) => {
  const res = await request(app).post('/api/v1/saved-searches').set(auth(userId)).send(body);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as number;
};
const feed = async (userId: number, query: Record<string, string> = {}) => {
  const res = await request(app).get('/api/v1/notifications/feed').query(query).set(auth(userId));
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data.notifications.content as Array<Record<string, unknown>>;
};
const matchesOf = (houseId: number) => h.models.notifications.find({ kind: 'LISTING_MATCH', commentId: houseId }).lean().exec();
const recipientsOf = async (houseId: number) => (await matchesOf(houseId)).map((n) => n.recipientId).sort();

function listing(overrides: Partial<HouseListingPublishedV1> = {}): HouseListingPublishedV1 {
  return houseListingPublished.build({
    houseId: ++houseSeq,
    authorId: AGENT,
    title: `강릉 집 ${houseSeq}`,
    rentalType: 'SALE',
    dealState: 'ONGOING',
    houseType: 'HOUSE',
    recommendedTag: ['WANT_TO_FARM'],
    price: 12000,
    province: '강원특별자치도',
    county: '강릉시',
    latitude: 37.75,
    longitude: 128.9,
    occurredAt: new Date().toISOString(),
    ...overrides,
  });
}
const publish = (event: HouseListingPublishedV1, msgId = event.eventId) => bus.publish(houseListingPublished.subject, event, msgId);

let annSearch: number;

beforeAll(async () => {
  h = await startServiceHarness('notifalerts', { models: notificationsModels, initModels, buildApp });
  app = h.app;
  for (const [id, name] of [
    [ANN, 'ann'],
    [BEN, 'ben'],
    [CAROL, 'carol'],
    [DAN, 'dan'],
    [AGENT, 'agent'],
  ] as const)
    await addMember(h.connection, name, { id });
  admin = await addAdmin(h.connection, 'admin', { id: 406 });
  annSearch = await save(ANN, { name: '강원 매매', province: '강원', rentalType: 'SALE', maxPrice: 20000 });
  await save(BEN, { name: '경상', province: '경상' });
  await save(CAROL, { name: '강원 조용히', province: '강원', alert: false });
  await save(DAN, { name: '강릉 근처', latitude: 37.76, longitude: 128.9, radiusKm: 20 });
  await save(AGENT, { name: '내 매물도', province: '강원도' });
  bus = await h.bus();
  consumers = await startConsumers(
    bus,
    notificationsConsumers(h.ctx, { EVENT_MAX_DELIVER: 5, EVENT_BACKOFF_MS: [500] }, { deliver: (doc) => delivered.push(doc) }),
  );
});

afterAll(async () => {
  await consumers?.stop();
  await h.close();
});

it('a published listing alerts each matching member once within 2 s: not the author, not alerts-off, not other regions', async () => {
  const event = listing();
  const started = Date.now();
  await publish(event);
  await eventually(async () => (await recipientsOf(event.houseId)).length === 2, 2_000, 20);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(await recipientsOf(event.houseId)).toEqual([ANN, DAN]);
  expect(
    delivered
      .filter((d) => d.targetId === event.houseId)
      .map((d) => d.recipientId)
      .sort(),
  ).toEqual([ANN, DAN]);

  // Published again (a new message id), re-published by a re-approval (a new event): still once each.
  await publish(event, `${event.eventId}-again`);
  await publish({ ...event, eventId: `${event.eventId}-reapproved` });
  const marker = listing({ province: '경상남도', county: '창원시', latitude: null, longitude: null });
  await publish(marker);
  await eventually(async () => (await recipientsOf(marker.houseId)).length === 1);
  expect(await recipientsOf(marker.houseId)).toEqual([BEN]);
  expect(await recipientsOf(event.houseId)).toEqual([ANN, DAN]);
});

it('compares each condition: price, rental type, and the point for a circle', async () => {
  const dear = listing({ price: 50_000 });
  const jeonse = listing({ rentalType: 'JEONSE' });
  const far = listing({ latitude: 37.3, longitude: 127.9, county: '원주시' });
  const unplaced = listing({ latitude: null, longitude: null });
  for (const event of [dear, jeonse, far, unplaced]) await publish(event);
  const last = listing({ province: '경상북도', latitude: null, longitude: null });
  await publish(last);
  await eventually(async () => (await recipientsOf(last.houseId)).length === 1);
  expect(await recipientsOf(dear.houseId)).toEqual([DAN]);
  expect(await recipientsOf(jeonse.houseId)).toEqual([DAN]);
  expect(await recipientsOf(far.houseId)).toEqual([ANN]);
  expect(await recipientsOf(unplaced.houseId)).toEqual([ANN]);
});

it("reads only the searches under the listing's keys, not every search", async () => {
  // 300 searches elsewhere: none is a candidate for a Gangwon sale.
  await h.models.savedSearches.insertMany(
    Array.from({ length: 300 }, (_, i) => ({
      _id: 900_000 + i,
      userId: 10_000 + i,
      name: `먼 조건 ${i}`,
      province: '제주',
      alert: true,
      matchKeys: ['제주특별자치도|*'],
      createdAt: new Date(),
      updatedAt: new Date(),
    })),
  );
  const cost = { candidates: 0 };
  const members = await matchingMembers(h.ctx, listing(), cost);
  expect(members.map((m) => m.userId).sort()).toEqual([ANN, DAN]);
  // ann, agent, dan (carol's alert is off: no key). Never the 300.
  expect(cost.candidates).toBe(3);
});

it('the feed shows the alert with its listing and search; the contract list does not; marking read works', async () => {
  const event = listing({ title: '피드에 보일 집' });
  await publish(event);
  const [notice] = await eventually(async () => {
    const found = await matchesOf(event.houseId);
    return found.length === 2 ? found.filter((n) => n.recipientId === ANN) : undefined;
  });
  const items = await feed(ANN);
  expect(items[0]).toEqual({
    notification_id: notice._id,
    kind: 'LISTING_MATCH',
    status: false,
    created_at: expect.any(String),
    house_id: event.houseId,
    house_title: '피드에 보일 집',
    saved_search_id: annSearch,
  });
  expect((await feed(ANN, { kind: 'COMMENT' })).length).toBe(0);
  const contract = await request(app).get('/api/v1/notifications').set(auth(ANN));
  expect(contract.body.data.notifications.content).toEqual([]);

  expect((await request(app).put(`/api/v1/notifications/${notice._id}`).set(auth(ANN))).body.data).toBe(notice._id);
  expect((await feed(ANN))[0].status).toBe(true);
  expect((await feed(ANN, { read: 'false' })).some((i) => i.notification_id === notice._id)).toBe(false);
  expectError(await request(app).get('/api/v1/notifications/feed?kind=PARTY').set(auth(ANN)), 400, 'C0002');
});

it('a member who turns a kind off gets no such notice; preferences answer every kind', async () => {
  const initial = await request(app).get('/api/v1/notifications/preferences').set(auth(DAN));
  expect(initial.body.data).toEqual({ COMMENT: true, REPLY: true, LISTING_MATCH: true, LISTING_APPROVED: true, LISTING_REJECTED: true, SCRAP_CHANGED: true });
  const put = await request(app).put('/api/v1/notifications/preferences').set(auth(DAN)).send({ LISTING_MATCH: false });
  expect(put.status).toBe(200);
  expect(put.body.data.LISTING_MATCH).toBe(false);
  expect(put.body.data.COMMENT).toBe(true);
  expectError(await request(app).put('/api/v1/notifications/preferences').set(auth(DAN)).send({ PARTY: false }), 400, 'C0002');
  expectError(await request(app).put('/api/v1/notifications/preferences').set(auth(DAN)).send({ COMMENT: 'no' }), 400, 'C0002');

  const event = listing();
  await publish(event);
  await eventually(async () => (await recipientsOf(event.houseId)).length === 1);
  const later = listing({ province: '경상북도' });
  await publish(later);
  await eventually(async () => (await recipientsOf(later.houseId)).length === 1);
  expect(await recipientsOf(event.houseId)).toEqual([ANN]);

  await request(app).put('/api/v1/notifications/preferences').set(auth(DAN)).send({ LISTING_MATCH: true }).expect(200);
});

it('approvals, rejections, scrap changes and replies reach the feed with their kinds, once', async () => {
  const approved = houseListingDecided.build({
    houseId: 8001,
    authorId: ANN,
    title: '승인 집',
    approved: true,
    reason: null,
    occurredAt: new Date().toISOString(),
  });
  const rejected = houseListingDecided.build({
    houseId: 8002,
    authorId: ANN,
    title: '거절 집',
    approved: false,
    reason: '사진 부족',
    occurredAt: new Date().toISOString(),
  });
  const changed = houseListingChanged.build({
    houseId: 8003,
    authorId: AGENT,
    title: '가격 내린 집',
    price: 9000,
    dealState: 'ONGOING',
    previousPrice: 12000,
    previousDealState: 'ONGOING',
    scrapperIds: [BEN, AGENT],
    occurredAt: new Date().toISOString(),
  });
  const reply = recordCommentCreated.build({
    recordId: 5,
    recordTitle: '회고',
    recordAuthorId: CAROL,
    parentCommentAuthorId: BEN,
    commentId: 61,
    commenterId: ANN,
    commenterNickName: 'ann',
    content: '답글입니다',
    occurredAt: new Date().toISOString(),
  });
  for (const [subject, event] of [
    [houseListingDecided.subject, approved],
    [houseListingDecided.subject, rejected],
    [houseListingChanged.subject, changed],
    [recordCommentCreated.subject, reply],
  ] as const) {
    await bus.publish(subject, event, event.eventId);
    await bus.publish(subject, event, `${event.eventId}-again`);
  }
  await eventually(
    async () => (await h.models.notifications.countDocuments({ commentId: 61 }).exec()) === 2 && (await feed(BEN, { kind: 'SCRAP_CHANGED' })).length === 1,
  );
  const annKinds = (await feed(ANN, { size: '50' })).filter((i) => i.house_id === 8001 || i.house_id === 8002);
  expect(annKinds.map((i) => [i.kind, i.house_title, i.reason ?? null]).sort()).toEqual([
    ['LISTING_APPROVED', '승인 집', null],
    ['LISTING_REJECTED', '거절 집', '사진 부족'],
  ]);
  const ben = (await feed(BEN, { size: '50' })).filter((i) => i.kind !== 'LISTING_MATCH');
  expect(ben.map((i) => i.kind).sort()).toEqual(['REPLY', 'SCRAP_CHANGED']);
  expect(ben.find((i) => i.kind === 'SCRAP_CHANGED')).toMatchObject({ house_id: 8003, price: 9000, deal_state: 'ONGOING' });
  expect(ben.find((i) => i.kind === 'REPLY')).toMatchObject({ board_id: 5, comment: '답글입니다', comment_user: 'ann', type: 'record' });
  expect((await feed(CAROL)).map((i) => i.kind)).toEqual(['COMMENT']);
  // The contract's list shows the reply as it always did.
  const contract = await request(app).get('/api/v1/notifications').set(auth(BEN));
  expect(contract.body.data.notifications.content).toEqual([expect.objectContaining({ board_id: 5, comment: '답글입니다', type: 'record' })]);
  expect(Object.keys(contract.body.data.notifications.content[0])).toEqual([
    'notification_id',
    'nick_name',
    'board_id',
    'board_title',
    'status',
    'comment',
    'comment_user',
    'type',
  ]);
  expect((await feed(AGENT)).some((i) => i.kind === 'SCRAP_CHANGED')).toBe(false);
});

it('administrators see the alerts sent per day', async () => {
  const res = await request(app).get('/api/v1/admin/stats/notifications?days=3').set('Authorization', admin.token);
  expect(res.status).toBe(200);
  expect(res.body.data.days).toHaveLength(3);
  const today = res.body.data.days[2] as { date: string; alerts: number };
  expect(today.alerts).toBe(await h.models.notifications.countDocuments({ kind: 'LISTING_MATCH' }).exec());
  expect(today.alerts).toBeGreaterThan(0);
  expect(res.body.data.days[0].alerts).toBe(0);
  expectError(await request(app).get('/api/v1/admin/stats/notifications').set(auth(ANN)), 403, 'J0006');
  expectError(await request(app).get('/api/v1/admin/stats/notifications?days=0').set('Authorization', admin.token), 400, 'C0002');
});
