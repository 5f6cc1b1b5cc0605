/**
 * Houses end to end: two houses processes behind the real gateway, one database, the real NATS.
 * Needs the built processes (`npx tsc -b`).
 */
import { bearer, eventually } from '../support';
import { sampleListing, startE2eSystem, type ApiOptions, type E2eSystem } from '../support/e2e';

jest.setTimeout(120_000);

let e2e: E2eSystem;

const agent = { userId: 710_001, userType: 'AGENT' as const };
const general = { userId: 710_002, userType: 'NONE' as const };
const admin = { userId: 710_003, userType: 'WEB' as const, authority: 'ADMIN' as const };

const listing = sampleListing;

// Response bodies are inspected loosely here; the service tests pin the exact shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseData = any;

const call = (method: string, path: string, options?: ApiOptions) => e2e.api<LooseData>(method, path, options);

beforeAll(async () => {
  e2e = await startE2eSystem('housese2e', { services: ['houses'], instances: { houses: 2 }, env: { LOG_LEVEL: 'warn' } });
});

afterAll(async () => {
  await e2e?.stop();
});

test('create -> approve -> list through the gateway, nicknames from accounts snapshots', async () => {
  expect(e2e.system.services.houses).toHaveLength(2);
  const agentToken = bearer(agent);
  const generalToken = bearer(general);
  const adminToken = bearer(admin);

  const published = await call('POST', '/api/v1/houses', { token: agentToken, body: listing('담양 한옥 전세') });
  expect(published).toMatchObject({ status: 200, body: { code: 'SUCCESS', data: expect.any(Number) } });
  const waiting = await call('POST', '/api/v1/houses', { token: generalToken, body: listing('담양 대기 매물') });
  const waitingId = waiting.body.data as number;

  expect((await call('GET', `/api/v1/houses/${waitingId}`)).status).toBe(404);
  const queue = await call('GET', '/api/v1/houses/apply', { token: adminToken });
  expect(queue.body.data.content.map((i: { houseId: number }) => i.houseId)).toEqual([waitingId]);
  expect((await call('GET', '/api/v1/houses/apply', { token: generalToken })).body.code).toBe('J0006');
  expect(await call('PUT', `/api/v1/houses/apply/${waitingId}`, { token: adminToken, body: { approve: true } })).toMatchObject({
    status: 200,
    body: { data: waitingId },
  });

  const list = await call('GET', `/api/v1/houses?city=${encodeURIComponent('전라')}`);
  expect(list.status).toBe(200);
  expect(list.body.data.content.map((i: { houseId: number }) => i.houseId)).toEqual([waitingId, published.body.data]);

  // accounts would publish this snapshot; one of the two instances applies it to the shared projection.
  await e2e.publishUser({ id: agent.userId, userName: 'agent1', nick_name: '담양중개', userType: 'AGENT', version: 1 });
  await eventually(async () => (await call('GET', `/api/v1/houses?search=${encodeURIComponent('담양중개')}`)).body.data?.totalElements === 1, 20_000, 200);

  expect((await call('PUT', `/api/v1/scraps/${waitingId}`, { token: agentToken })).body.data).toBe(waitingId);
  const detail = await call('GET', `/api/v1/houses/user-scrap/${waitingId}`, { token: agentToken });
  expect(detail.body.data).toMatchObject({ houseId: waitingId, isScraped: true, floorNum: 0, recommendedTagName: ['어느 정도 준비된 집이 좋아요.'] });
  expect((await call('GET', '/api/v1/houses/user-scrap/abc', { token: agentToken })).status).toBe(400);

  // Stateless: each instance, asked directly, answers the same for the same listing.
  for (const instance of e2e.system.services.houses!) {
    const res = await fetch(`${instance.url}/api/v1/houses/${waitingId}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { title: string } }).data.title).toBe('담양 대기 매물');
  }
});

test('with one instance stopped, requests through the gateway still succeed', async () => {
  const [first] = e2e.system.services.houses!;
  await first.stop();
  const token = bearer(agent);
  const results: number[] = [];
  for (let i = 0; i < 10; i++) results.push((await call('GET', '/api/v1/houses')).status);
  const created = await call('POST', '/api/v1/houses', { token, body: listing(`인스턴스 하나로 ${Date.now()}`) });
  results.push(created.status);
  results.push((await call('GET', `/api/v1/houses/${created.body.data}`)).status);
  expect(results).toEqual(Array(12).fill(200));

  await first.restart();
  const statuses = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/api/v1/houses?size=1').then((r) => r.status)));
  expect(statuses).toEqual(Array(6).fill(200));
});
