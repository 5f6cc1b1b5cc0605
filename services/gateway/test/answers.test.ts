/**
 * The gateway's memory of the services' anonymous answers (issue 42), with the real houses service on the run's
 * MongoDB-protocol store, its cache on the run's NATS, and two gateways in front of it, each with its own NATS
 * connection: what the houses instance offers is kept, its headers given again; a write through one gateway
 * shows at once through it and through the other as soon as the announcement arrives; a lost connection forgets
 * everything and keeps answers a second at most.
 */
import type { AddressInfo } from 'node:net';
import { createLogger, type ResponseCache } from '@binzip/shared';
import request from 'supertest';
import { connectForAnnouncements } from '@binzip/shared/response-cache';
import { eventually, testEnv } from '../../../test/support';
import { addPerson, cachedInstance, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { HOUSE_ANSWERS } from '../../houses/src/cache-keys';
import { buildApp } from '../../houses/src/service';
import { createListing, housesService, validListing, type HousesHarness } from '../../houses/test/helpers';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';
import { ANSWERS_SETTLE_MS } from '../src/proxy/forward';
import { serveLocally, type LocalServer } from './helpers';

let h: HousesHarness;
let agent: TestPerson;
let houses: LocalServer;
let houseCache: ResponseCache;
const closers: Array<() => unknown> = [];

interface FrontDoor {
  url: string;
  announcements: Awaited<ReturnType<typeof connectForAnnouncements>>;
}
let one: FrontDoor;
let two: FrontDoor;
/**
 * A gateway connected to NATS that hears none of the services' announcements (another prefix): as one cut off
 * from them by a partition between NATS servers, which no client sees.
 */
let apart: FrontDoor;

async function frontDoor(name: string, prefix = h.names.natsPrefix, env: Record<string, string> = {}): Promise<FrontDoor> {
  // The test connects from loopback: the operator, who may read /metrics.
  const config = configSchema.parse({
    JWT_PUBLIC_KEY: testEnv().publicKey,
    HOUSES_URLS: houses.url,
    LOG_LEVEL: 'silent',
    OPERATOR_ADDRESSES: 'loopback',
    ...env,
  });
  const gateway = buildGateway({ config, logger: createLogger(name, 'silent') });
  const announcements = await connectForAnnouncements({ url: testEnv().natsUrl, prefix, name });
  gateway.hearAnnouncements(announcements);
  await announcements.connection.flush();
  const server = await listenGateway(gateway, 0, '127.0.0.1');
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  closers.push(gateway.stopHearing, () => announcements.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, announcements };
}

beforeAll(async () => {
  h = await startServiceHarness('gwanswers', housesService);
  agent = await addPerson(h.connection, '게이트웨이중개', { userType: 'AGENT' });
  const bus = await h.bus();
  const instance = cachedInstance(h, { buildApp }, bus, 'houses');
  houseCache = instance.cache;
  closers.push(() => instance.cache.stop());
  houses = await serveLocally(instance.app);
  closers.push(houses.close);
  one = await frontDoor('gateway-one');
  two = await frontDoor('gateway-two');
  apart = await frontDoor('gateway-apart', `${h.names.natsPrefix}_apart`);
  await bus.connection.flush();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await h.close();
});

const get = (door: FrontDoor, path: string, headers: Record<string, string> = {}) => fetch(`${door.url}${path}`, { headers });
const titleOf = async (res: Response) => ((await res.json()) as { data: { title: string } }).data.title;
const titlesOf = async (res: Response) => ((await res.json()) as { data: { content: Array<{ title: string }> } }).data.content.map((item) => item.title);
/** Changes a listing behind the service's back: only a cache's own rules can make the change show. */
const retitle = (houseId: number, title: string) => h.models.houses.updateOne({ _id: houseId }, { $set: { title } }).exec();
/** The service forgets its own answers by their lifetime: what still shows the old title came from a gateway. */
const serviceForgets = () => h.clock.advance(HOUSE_ANSWERS.ttlMs);
/** The gateway's answers of cached reads so far, by who answered (`binzip_response_cache_answers_total`). */
async function answersCounted(door: FrontDoor): Promise<{ memory: number; service: number }> {
  const text = await (await fetch(`${door.url}/metrics`)).text();
  const count = (by: string) => Number(new RegExp(`^binzip_response_cache_answers_total\\{answered_by="${by}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { memory: count('memory'), service: count('service') };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, ANSWERS_SETTLE_MS + 50));

it("answers an anonymous read from its memory with the service's headers, If-None-Match as the service does; a member's read goes to the service", async () => {
  const houseId = await createListing(h, agent, { title: '게이트웨이 집' });
  await settle();
  const counted = await answersCounted(one);
  const first = await get(one, `/api/v1/houses/${houseId}`, { 'x-request-id': 'first-read' });
  expect(await titleOf(first)).toBe('게이트웨이 집');
  expect(await answersCounted(one)).toEqual({ memory: counted.memory, service: counted.service + 1 });
  await retitle(houseId, '몰래 고친 집');
  serviceForgets();
  const hits = houseCache.hits + houseCache.misses;
  const kept = await get(one, `/api/v1/houses/${houseId}`, { 'x-request-id': 'kept-read' });
  expect(await titleOf(kept)).toBe('게이트웨이 집');
  // The service was not asked; the gateway's /metrics counts the answer from its memory.
  expect(houseCache.hits + houseCache.misses).toBe(hits);
  expect(await answersCounted(one)).toEqual({ memory: counted.memory + 1, service: counted.service + 1 });
  // The same headers as the service's answer, the request's own id, and none of the internal ones.
  const headersOf = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive'));
  expect(headersOf(kept)).toEqual({ ...headersOf(first), 'x-request-id': 'kept-read' });
  expect(headersOf(first)['x-request-id']).toBe('first-read');
  expect(first.headers.get('cache-control')).toBe('public, no-cache');
  expect(first.headers.get('etag')).toMatch(/^W\/".+"$/);
  expect([...first.headers.keys()].filter((name) => name.startsWith('x-binzip'))).toEqual([]);

  // A client holding the kept answer: 304 from memory, with its tag and lifetime rules, without a body or its type.
  // (supertest: fetch adds `Cache-Control: no-cache` to every conditional request, a reload.)
  const etag = String(first.headers.get('etag'));
  const notModified = await request(one.url).get(`/api/v1/houses/${houseId}`).set({ 'if-none-match': etag, 'x-request-id': 'revalidated' });
  expect(notModified.status).toBe(304);
  expect(notModified.text).toBe('');
  // (Its own connection, closed after it: supertest's.)
  const { date: _date, connection: _connection, ...revalidated } = notModified.headers as Record<string, string>;
  expect(revalidated).toEqual({
    ...headersOf(first),
    'x-request-id': 'revalidated',
    'content-type': undefined,
    'content-length': undefined,
    connection: undefined,
  });
  // Another tag, or a reload (`Cache-Control: no-cache`), gets the kept answer whole, as from the service.
  for (const headers of [{ 'if-none-match': 'W/"another"' }, { 'if-none-match': etag, 'cache-control': 'no-cache' }]) {
    const whole = await request(one.url).get(`/api/v1/houses/${houseId}`).set(headers);
    expect(whole.status).toBe(200);
    expect(whole.body.data.title).toBe('게이트웨이 집');
  }
  expect(houseCache.hits + houseCache.misses).toBe(hits);
  // A member's read, and If-Modified-Since, go to the service.
  expect(await titleOf(await get(one, `/api/v1/houses/${houseId}`, { 'if-modified-since': new Date().toUTCString() }))).toBe('몰래 고친 집');
  const member = await addPerson(h.connection, '게이트웨이회원');
  expect(await titleOf(await get(one, `/api/v1/houses/${houseId}`, { authorization: member.token }))).toBe('몰래 고친 집');
});

it('shows a write through one gateway at once to an anonymous read through it, and through the other once announced', async () => {
  await createListing(h, agent, { title: '먼저 있던 집' });
  await settle();
  const list = '/api/v1/houses?size=50';
  const before = await titlesOf(await get(one, list));
  expect(await titlesOf(await get(two, list))).toEqual(before);
  serviceForgets();
  // Both gateways keep the list: a listing stored through an app whose writes announce nothing shows in neither.
  const hidden = '숨은 집';
  await createListing(h, agent, { title: hidden });
  expect(await titlesOf(await get(one, list))).toEqual(before);
  expect(await titlesOf(await get(two, list))).toEqual(before);

  const created = await fetch(`${one.url}/api/v1/houses`, {
    method: 'POST',
    headers: { authorization: agent.token, 'content-type': 'application/json' },
    body: JSON.stringify(validListing({ title: '방금 올린 집' })),
  });
  expect(created.status).toBe(200);
  // Through the gateway that forwarded the write, at once: its answer said what it changed.
  const after = await titlesOf(await get(one, list));
  expect(after).toContain('방금 올린 집');
  expect(after).toContain(hidden);
  // Through the other one, once the service's announcement arrived (milliseconds; never the 10 s lifetime).
  await eventually(async () => (await titlesOf(await get(two, list))).includes('방금 올린 집'), 3_000);
});

it('shows a write at once through the gateway that forwarded it even when it hears no announcement', async () => {
  await settle();
  const list = '/api/v1/houses?size=50';
  const before = await titlesOf(await get(apart, list));
  serviceForgets();
  await createListing(h, agent, { title: '떨어진 곳의 숨은 집' });
  expect(await titlesOf(await get(apart, list))).toEqual(before);
  const created = await fetch(`${apart.url}/api/v1/houses`, {
    method: 'POST',
    headers: { authorization: agent.token, 'content-type': 'application/json' },
    body: JSON.stringify(validListing({ title: '떨어진 곳에서 올린 집' })),
  });
  expect(created.status).toBe(200);
  // No announcement reaches it: the write's own answer made it forget.
  expect(await titlesOf(await get(apart, list))).toEqual(expect.arrayContaining(['떨어진 곳에서 올린 집', '떨어진 곳의 숨은 집']));
});

it('a lost NATS connection forgets everything and keeps answers a second at most; a real reconnect forgets again', async () => {
  const houseId = await createListing(h, agent, { title: '끊기기 전 집' });
  await settle();
  const path = `/api/v1/houses/${houseId}`;
  for (const door of [one, two]) expect(await titleOf(await get(door, path))).toBe('끊기기 전 집');
  await retitle(houseId, '다시 붙은 뒤의 집');
  serviceForgets();
  for (const door of [one, two]) expect(await titleOf(await get(door, path))).toBe('끊기기 전 집');
  // A real reconnect: what was announced meanwhile never arrives, so everything is forgotten.
  await two.announcements.connection.reconnect();
  await eventually(async () => (await titleOf(await get(two, path))) === '다시 붙은 뒤의 집', 3_000);
  expect(await titleOf(await get(one, path))).toBe('끊기기 전 집');

  // The connection gone for good: everything forgotten, and answers kept a second at most.
  await retitle(houseId, '끊긴 동안의 집');
  serviceForgets();
  await one.announcements.close();
  await eventually(async () => (await titleOf(await get(one, path))) === '끊긴 동안의 집', 3_000);
  await settle();
  expect(await titleOf(await get(one, path))).toBe('끊긴 동안의 집');
  await retitle(houseId, '1초 뒤의 집');
  serviceForgets();
  expect(await titleOf(await get(one, path))).toBe('끊긴 동안의 집');
  await new Promise((resolve) => setTimeout(resolve, 1_050));
  expect(await titleOf(await get(one, path))).toBe('1초 뒤의 집');
});

it('keeps nothing with RESPONSE_CACHE_MAX_BYTES=0, as the services read it: every anonymous read reaches the service', async () => {
  const off = await frontDoor('gateway-off', h.names.natsPrefix, { RESPONSE_CACHE_MAX_BYTES: '0' });
  const houseId = await createListing(h, agent, { title: '기억 없는 집' });
  await settle();
  expect(await titleOf(await get(off, `/api/v1/houses/${houseId}`))).toBe('기억 없는 집');
  expect(await titleOf(await get(one, `/api/v1/houses/${houseId}`))).toBe('기억 없는 집');
  await retitle(houseId, '바로 보이는 집');
  serviceForgets();
  // The gateway with a memory still answers what it kept; the one without asks the service.
  expect(await titleOf(await get(one, `/api/v1/houses/${houseId}`))).toBe('기억 없는 집');
  expect(await titleOf(await get(off, `/api/v1/houses/${houseId}`))).toBe('바로 보이는 집');
});
