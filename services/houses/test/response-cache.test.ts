import {
  CACHE_CHANGED_HEADER,
  CACHE_OFFER_HEADER,
  readOffer,
  ResponseCache,
  UNHEARD_TTL_MS,
  userProjection,
  type EventBus,
  type RunningConsumer,
  accountsStream,
} from '@binzip/shared';
import type { Express } from 'express';
import request from 'supertest';
import { eventually as eventuallyTrue, publishUserSnapshot, userSnapshot } from '../../../test/support';
import { addMember, addPerson, cachedInstance, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { atMostEvery, buildApp } from '../src/service';
import { HOUSE_ANSWERS, scrapsKey } from '../src/cache-keys';
import { geocodeDue } from '../src/domain/geocoding';
import { localGeocoder } from '../src/domain/geocoder';
import { createListing, type HousesHarness, housesService, validListing } from './helpers';

let h: HousesHarness;
let agent: TestPerson;
let member: TestPerson;
let bus: EventBus;
const caches: ResponseCache[] = [];
/** Two instances of the service on one database, each with its own cache listening on NATS, as main.ts builds them. */
let first: Express;
let second: Express;

beforeAll(async () => {
  h = await startServiceHarness('housecache', housesService);
  agent = await addPerson(h.connection, '캐시중개', { userType: 'AGENT' });
  member = await addMember(h.connection, '캐시회원');
  bus = await h.bus();
  const instance = () => {
    const { app, cache } = cachedInstance(h, { buildApp }, bus, 'houses');
    caches.push(cache);
    return app;
  };
  first = instance();
  second = instance();
  await bus.connection.flush();
});

afterAll(async () => {
  caches.forEach((c) => c.stop());
  await h.close();
});

const detail = (app: Express, houseId: number, who?: TestPerson) => {
  const test = request(app).get(`/api/v1/houses/${houseId}`);
  return who ? test.set('Authorization', who.token) : test;
};

/** Changes a listing behind the service's back: only the cache's own rules can make the change show. */
const retitle = (houseId: number, title: string) => h.models.houses.updateOne({ _id: houseId }, { $set: { title } }).exec();
const titleOf = (res: request.Response) => (res.body as { data: { title: string } }).data.title;

it('serves an anonymous answer for the route TTL and no longer, with an ETag answered 304', async () => {
  const houseId = await createListing(h, agent, { title: '처음 제목' });
  const original = await detail(first, houseId);
  expect(titleOf(original)).toBe('처음 제목');
  expect(original.headers.etag).toMatch(/^W\/".+"$/);
  expect(original.headers['cache-control']).toBe('public, no-cache');

  await retitle(houseId, '바뀐 제목');
  h.clock.advance(HOUSE_ANSWERS.ttlMs - 1);
  const cached = await detail(first, houseId);
  expect(titleOf(cached)).toBe('처음 제목');
  expect(cached.headers.etag).toBe(original.headers.etag);
  const notModified = await detail(first, houseId).set('If-None-Match', String(original.headers.etag));
  expect(notModified.status).toBe(304);
  expect(notModified.text).toBe('');

  h.clock.advance(1);
  const fresh = await detail(first, houseId).set('If-None-Match', String(original.headers.etag));
  expect(fresh.status).toBe(200);
  expect(titleOf(fresh)).toBe('바뀐 제목');
  expect(fresh.headers.etag).not.toBe(original.headers.etag);
});

it('never shares an answer between callers: a member gets his own isScraped, an anonymous caller never sees it', async () => {
  const houseId = await createListing(h, agent);
  expect((await request(first).put(`/api/v1/scraps/${houseId}`).set('Authorization', member.token)).status).toBe(200);
  const mine = await detail(first, houseId, member);
  expect(mine.body.data.isScraped).toBe(true);
  expect(mine.headers['cache-control']).toBe('private, no-cache');
  const anonymous = await detail(first, houseId);
  expect(anonymous.body.data.isScraped).toBe(false);
  const mineAgain = await detail(first, houseId, member);
  expect(mineAgain.body.data.isScraped).toBe(true);
  const other = await addMember(h.connection, '다른회원');
  expect((await detail(first, houseId, other)).body.data.isScraped).toBe(false);
});

it('shows a write at once: the instance that answered it forgets its cached answers', async () => {
  const before = await request(first).get('/api/v1/houses?size=50');
  const created = await request(first)
    .post('/api/v1/houses')
    .set('Authorization', agent.token)
    .send(validListing({ title: '방금 올린 집' }));
  const houseId = created.body.data as number;
  const after = await request(first).get('/api/v1/houses?size=50');
  expect(after.body.data.totalElements).toBe(before.body.data.totalElements + 1);
  expect((after.body.data.content as Array<{ houseId: number }>).some((item) => item.houseId === houseId)).toBe(true);
});

it("offers its anonymous answers to the gateway in front (lifetime left and keys), never a member's; a write's answer names what it changed", async () => {
  const houseId = await createListing(h, agent, { title: '게이트웨이에 줄 집' });
  h.clock.advance(HOUSE_ANSWERS.ttlMs);
  const computed = await detail(first, houseId);
  expect(readOffer(computed.headers[CACHE_OFFER_HEADER])).toEqual({ ttlMs: HOUSE_ANSWERS.ttlMs, keys: [] });
  h.clock.advance(4_000);
  const remembered = await detail(first, houseId);
  expect(readOffer(remembered.headers[CACHE_OFFER_HEADER])).toEqual({ ttlMs: HOUSE_ANSWERS.ttlMs - 4_000, keys: [] });
  expect((await detail(first, houseId, member)).headers[CACHE_OFFER_HEADER]).toBeUndefined();
  expect((await request(first).get('/api/v1/houses/scrap').set('Authorization', member.token)).headers[CACHE_OFFER_HEADER]).toBeUndefined();

  const scrapped = await request(first).put(`/api/v1/scraps/${houseId}`).set('Authorization', member.token);
  expect(JSON.parse(String(scrapped.headers[CACHE_CHANGED_HEADER]))).toEqual({ keys: [scrapsKey(member.id)] });
  // A listing write declares nothing: no header, and the gateway forgets every answer of houses.
  const created = await request(first).post('/api/v1/houses').set('Authorization', agent.token).send(validListing());
  expect(created.status).toBe(200);
  expect(created.headers[CACHE_CHANGED_HEADER]).toBeUndefined();
});

describe('across instances, through NATS', () => {
  /** Asks until the answer shows what `seen` wants (the clock stands still: only an invalidation can make it show). */
  async function eventually(app: Express, houseId: number, seen: (data: { title: string; nickName: string }) => boolean): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (seen((await detail(app, houseId)).body.data as { title: string; nickName: string })) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the cached answer never changed');
  }

  it("forgets another instance's answers when one instance writes", async () => {
    const houseId = await createListing(h, agent, { title: '둘째 집' });
    // The earlier tests' writes were announced on this shared connection: after a flush none can still arrive
    // and forget the answer this test caches next (on a loaded machine one did).
    await bus.connection.flush();
    expect(titleOf(await request(second).get(`/api/v1/houses/${houseId}`))).toBe('둘째 집');
    await retitle(houseId, '고친 둘째 집');
    expect(titleOf(await request(second).get(`/api/v1/houses/${houseId}`))).toBe('둘째 집');
    // A successful write on the first instance that declares no keys (here a new listing) is announced to the second.
    expect((await request(first).post('/api/v1/houses').set('Authorization', agent.token).send(validListing())).status).toBe(200);
    await eventually(second, houseId, (data) => data.title === '고친 둘째 집');
  });

  it("keeps every anonymous answer on a scrap or unscrap: they change only the member's own scrap list", async () => {
    const houseId = await createListing(h, agent, { title: '스크랩될 집' });
    expect(titleOf(await detail(first, houseId))).toBe('스크랩될 집');
    expect(titleOf(await detail(second, houseId))).toBe('스크랩될 집');
    await retitle(houseId, '몰래 고친 집');
    expect((await request(first).put(`/api/v1/scraps/${houseId}`).set('Authorization', member.token)).status).toBe(200);
    expect((await request(second).delete(`/api/v1/scraps/${houseId}`).set('Authorization', member.token)).status).toBe(200);
    // Every instance shares the bus connection: after a flush any announcement would have been delivered.
    await bus.connection.flush();
    expect(titleOf(await detail(first, houseId))).toBe('스크랩될 집');
    expect(titleOf(await detail(second, houseId))).toBe('스크랩될 집');
    h.clock.advance(HOUSE_ANSWERS.ttlMs);
    expect(titleOf(await detail(second, houseId))).toBe('몰래 고친 집');
  });

  it("keeps a member's scrap list for him alone; his scrap or unscrap forgets it on every instance, and keeps another member's", async () => {
    const other = await addMember(h.connection, '다른스크랩회원');
    const one = await createListing(h, agent, { title: '스크랩 목록 첫 집' });
    const two = await createListing(h, agent, { title: '스크랩 목록 둘째 집' });
    const scraps = async (app: Express, who: TestPerson): Promise<string[]> => {
      const res = await request(app).get('/api/v1/houses/scrap?size=50').set('Authorization', who.token);
      expect(res.headers['cache-control']).toBe('private, no-cache');
      return (res.body.data.content as Array<{ title: string }>).map((item) => item.title);
    };
    expect((await request(first).put(`/api/v1/scraps/${one}`).set('Authorization', member.token)).status).toBe(200);
    expect((await request(first).put(`/api/v1/scraps/${one}`).set('Authorization', other.token)).status).toBe(200);
    await bus.connection.flush();
    for (const app of [first, second]) {
      expect(await scraps(app, member)).toContain('스크랩 목록 첫 집');
      expect(await scraps(app, other)).toEqual(['스크랩 목록 첫 집']);
    }
    await retitle(one, '몰래 고친 첫 집');

    expect((await request(first).put(`/api/v1/scraps/${two}`).set('Authorization', member.token)).status).toBe(200);
    expect((await scraps(first, member)).slice(0, 2)).toEqual(['스크랩 목록 둘째 집', '몰래 고친 첫 집']);
    await eventuallyTrue(async () => (await scraps(second, member)).includes('스크랩 목록 둘째 집'));
    await bus.connection.flush();
    for (const app of [first, second]) expect(await scraps(app, other)).toEqual(['스크랩 목록 첫 집']);

    expect((await request(second).delete(`/api/v1/scraps/${two}`).set('Authorization', member.token)).status).toBe(200);
    expect(await scraps(second, member)).not.toContain('스크랩 목록 둘째 집');
    await eventuallyTrue(async () => !(await scraps(first, member)).includes('스크랩 목록 둘째 집'));
  });

  it("forgets once the user projection stored a nickname change from accounts' events", async () => {
    await bus.ensureStream(accountsStream);
    const projection: RunningConsumer = await bus.consume(userProjection({ bus, connection: h.connection, service: 'houses' }));
    try {
      const houseId = await createListing(h, agent, { title: '셋째 집' });
      expect((await detail(first, houseId)).body.data.nickName).toBe('캐시중개');
      expect((await detail(second, houseId)).body.data.nickName).toBe('캐시중개');
      await publishUserSnapshot(bus, userSnapshot(agent.id, '새이름중개', { userType: 'AGENT', version: 1_000_000 }));
      await eventually(first, houseId, (data) => data.nickName === '새이름중개');
      await eventually(second, houseId, (data) => data.nickName === '새이름중개');
    } finally {
      await projection.stop();
    }
  });

  it('keeps an answer for the houses lifetime (longer than a second) while nothing changes it, and a write through either instance shows on both at once', async () => {
    expect(HOUSE_ANSWERS.ttlMs).toBeGreaterThan(1_000);
    const houseId = await createListing(h, agent, { title: '오래 둘 집' });
    await bus.connection.flush();
    expect(titleOf(await detail(first, houseId))).toBe('오래 둘 집');
    expect(titleOf(await detail(second, houseId))).toBe('오래 둘 집');
    h.clock.advance(HOUSE_ANSWERS.ttlMs - 1);
    const before = { hits: caches[0].hits + caches[1].hits };
    expect(titleOf(await detail(first, houseId))).toBe('오래 둘 집');
    expect(titleOf(await detail(second, houseId))).toBe('오래 둘 집');
    expect(caches[0].hits + caches[1].hits - before.hits).toBe(2);
    // The author edits through the second instance: he sees it at once, and so does an anonymous reader of either.
    const edited = await request(second)
      .put(`/api/v1/houses/${houseId}`)
      .set('Authorization', agent.token)
      .send(validListing({ title: '고친 오래 둘 집' }));
    expect(edited.status).toBe(200);
    expect(titleOf(await detail(second, houseId, agent))).toBe('고친 오래 둘 집');
    expect(titleOf(await detail(second, houseId))).toBe('고친 오래 둘 집');
    await eventually(first, houseId, (data) => data.title === '고친 오래 둘 집');
  });

  it('forgets on every instance when the geocoding job stores a listing point', async () => {
    const houseId = await createListing(h, agent, { title: '위치 찾을 집', city: '강원특별자치도 강릉시 주문진읍', detail: '교항리 1' });
    await bus.connection.flush();
    const pointOf = async (app: Express) => (await detail(app, houseId)).body.data as { latitude: number | null };
    expect((await pointOf(first)).latitude).toBeNull();
    expect((await pointOf(second)).latitude).toBeNull();
    // The job, as the service starts it: each stored point forgets the answers of every instance (cache.changed).
    let located = 0;
    expect(
      await geocodeDue(h.ctx, localGeocoder, 50, () => {
        located += 1;
        caches[0].changed(undefined);
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(located).toBeGreaterThanOrEqual(1);
    expect((await pointOf(first)).latitude).not.toBeNull();
    await eventuallyTrue(async () => (await pointOf(second)).latitude !== null);
  });

  it("forgets the geocoding job's points at once, then at most once per interval: a burst of points forgets twice, none is left out", async () => {
    let forgotten = 0;
    const forget = atMostEvery(100, () => (forgotten += 1));
    forget.call();
    expect(forgotten).toBe(1);
    for (let i = 0; i < 5; i++) forget.call();
    expect(forgotten).toBe(1);
    await eventuallyTrue(() => forgotten === 2);
    await new Promise((r) => setTimeout(r, 150));
    expect(forgotten).toBe(2);
    forget.call();
    forget.call();
    forget.stop();
    expect(forgotten).toBe(4);
  });

  it('while its NATS connection is down, forgets everything and keeps answers a second at most; forgets again once it is back', async () => {
    const cache = caches[1];
    const houseId = await createListing(h, agent, { title: '끊길 집' });
    await bus.connection.flush();
    expect(titleOf(await detail(second, houseId))).toBe('끊길 집');
    await retitle(houseId, '끊긴 사이 고친 집');
    expect(titleOf(await detail(second, houseId))).toBe('끊길 집');
    // Lost: whatever the other instances announce now never arrives.
    cache.connectionStatus('lost');
    expect(cache.hearsChanges).toBe(false);
    expect(titleOf(await detail(second, houseId))).toBe('끊긴 사이 고친 집');
    await retitle(houseId, '또 고친 집');
    h.clock.advance(UNHEARD_TTL_MS - 1);
    expect(titleOf(await detail(second, houseId))).toBe('끊긴 사이 고친 집');
    h.clock.advance(1);
    expect(titleOf(await detail(second, houseId))).toBe('또 고친 집');
    // Back: what was announced meanwhile is forgotten too.
    await retitle(houseId, '돌아와 고친 집');
    cache.connectionStatus('back');
    expect(cache.hearsChanges).toBe(true);
    expect(titleOf(await detail(second, houseId))).toBe('돌아와 고친 집');
  });

  it('follows its real NATS connection: a reconnect forgets what it kept', async () => {
    const houseId = await createListing(h, agent, { title: '다시 붙을 집' });
    await bus.connection.flush();
    expect(titleOf(await detail(first, houseId))).toBe('다시 붙을 집');
    await retitle(houseId, '다시 붙은 뒤의 집');
    expect(titleOf(await detail(first, houseId))).toBe('다시 붙을 집');
    await bus.connection.reconnect();
    await eventuallyTrue(() => caches.every((c) => c.hearsChanges) && bus.connection.isClosed() === false);
    await eventually(first, houseId, (data) => data.title === '다시 붙은 뒤의 집');
  });

  it('does not keep an answer computed while the data changed', () => {
    const cache = new ResponseCache({ now: () => 0 });
    const handler = cache.route('houses', 1_000);
    const res = { statusCode: 200, json: undefined as unknown, setHeader: jest.fn(), type: jest.fn(), send: jest.fn(), on: jest.fn() };
    handler({ method: 'GET', headers: {}, originalUrl: '/x' } as never, res as never, () => undefined);
    cache.forget();
    (res.json as (body: unknown) => void)({ late: true });
    expect(cache.size).toBe(0);
  });
});

it('asks the store once for concurrent requests of one answer: the others wait for it', async () => {
  const houseId = await createListing(h, agent, { title: '몰리는 집' });
  h.clock.advance(HOUSE_ANSWERS.ttlMs);
  const [cache] = caches;
  const before = { hits: cache.hits, misses: cache.misses };
  const answers = await Promise.all(Array.from({ length: 6 }, () => detail(first, houseId)));
  expect(new Set(answers.map((res) => res.text)).size).toBe(1);
  expect(titleOf(answers[0])).toBe('몰리는 집');
  expect(cache.misses - before.misses).toBe(1);
  expect(cache.hits - before.hits).toBe(5);
});
