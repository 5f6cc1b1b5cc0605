/**
 * The houses part of the API document against the running system: every operation driven through the real
 * gateway, its success answer and its main error answers, each checked against the document by the e2e
 * harness. Needs the built processes (`npx tsc -b`).
 */
import { bearer, eventually } from '../support';
import { apiContract } from '../support/contract';
import { startE2eSystem, type ApiOptions, type E2eSystem } from '../support/e2e';

jest.setTimeout(120_000);

let e2e: E2eSystem;

const agent = { userId: 720_001, userType: 'AGENT' as const };
const member = { userId: 720_002, userType: 'NONE' as const };
const fan = { userId: 720_003, userType: 'NONE' as const };
const suspended = { userId: 720_004, userType: 'NONE' as const };
const admin = { userId: 720_005, userType: 'WEB' as const, authority: 'ADMIN' as const };
type Who = typeof agent | typeof member | typeof admin;

const listing = (overrides: Record<string, unknown> = {}) => ({
  rentalType: 'SALE',
  city: '경상북도 안동시 풍천면',
  detail: '하회마을 7',
  zipCode: '36758',
  size: '72.3',
  purpose: '주거용',
  floorNum: 1,
  contact: '01077778888',
  createdDate: '1962',
  price: 9000,
  monthlyPrice: 0,
  agentName: '안동부동산',
  title: '하회마을 고택',
  code: '<p>강이 보이는 집</p>',
  imageUrls: ['https://img.example.com/andong.jpg'],
  tmpYn: false,
  recommendedTag: ['WANT_TO_LOOK_A_GOOD_VIEW'],
  ...overrides,
});

const call = (method: string, path: string, who?: Who, body?: unknown, options: ApiOptions = {}) =>
  e2e.api<unknown>(method, path, { token: who ? bearer(who) : undefined, body, ...options });

async function expectAnswer(method: string, path: string, who: Who | undefined, status: number, code: string, body?: unknown): Promise<unknown> {
  const res = await call(method, path, who, body);
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  return res.body.data;
}

const ok = (method: string, path: string, who?: Who, body?: unknown) => expectAnswer(method, path, who, 200, 'SUCCESS', body);

beforeAll(async () => {
  e2e = await startE2eSystem('contracthouses', { services: ['houses'], env: { LOG_LEVEL: 'warn' } });
  await e2e.publishUser({ id: agent.userId, nick_name: '계약중개', userType: 'AGENT' });
  await e2e.publishUser({ id: member.userId, nick_name: '계약회원' });
  await e2e.publishUser({ id: fan.userId, nick_name: '계약구경꾼' });
  await e2e.publishUser({ id: suspended.userId, nick_name: '정지회원', status: 'SUSPENDED' });
  await e2e.publishUser({ id: admin.userId, nick_name: '계약관리자', userType: 'WEB', authority: 'ADMIN' });
});

afterAll(async () => {
  await e2e?.stop();
});

test('listings: create, read, list, edit, complete, delete and their errors', async () => {
  const houseId = (await ok('POST', '/api/v1/houses', agent, listing())) as number;
  await expectAnswer('POST', '/api/v1/houses', agent, 400, 'H0000', listing({ code: 'a'.repeat(10_001) }));
  await expectAnswer('POST', '/api/v1/houses', agent, 400, 'C0002', listing({ city: undefined }));
  await expectAnswer('POST', '/api/v1/houses', undefined, 401, 'J0000', listing());
  const draftId = (await ok('POST', '/api/v1/houses', member, { tmpYn: true, title: '쓰는 중' })) as number;

  await ok('GET', `/api/v1/houses/${houseId}`);
  await ok('GET', `/api/v1/houses/${draftId}`, member);
  await expectAnswer('GET', '/api/v1/houses/99999999', undefined, 404, 'C0001');
  await expectAnswer('GET', '/api/v1/houses/abc', undefined, 400, 'C0002');
  // A public read still checks a token that is sent.
  const badToken = await e2e.api('GET', `/api/v1/houses/${houseId}`, { token: 'Bearer abc' });
  expect({ status: badToken.status, code: badToken.body.code }).toEqual({ status: 401, code: 'J0004' });

  await ok('GET', '/api/v1/houses?city=경상&size=4');
  await expectAnswer('GET', '/api/v1/houses?size=-1', undefined, 400, 'C0002');
  await ok('GET', '/api/v1/houses/tmp-save?page=0&size=10', member);
  await ok('GET', '/api/v1/houses/agent?isCompleted=false', agent);
  await ok('GET', '/api/v1/houses/my?page=0&keyword=', agent);
  await ok('GET', `/api/v1/houses/user-scrap/${houseId}`, fan);
  await expectAnswer('GET', `/api/v1/houses/user-scrap/${houseId}`, undefined, 401, 'J0000');
  await expectAnswer('GET', '/api/v1/houses/user-scrap/99999999', fan, 404, 'C0001');

  expect(await ok('PUT', `/api/v1/houses/${houseId}`, agent, listing({ title: '하회마을 고택 (수정)' }))).toBe(houseId);
  await expectAnswer('PUT', `/api/v1/houses/${houseId}`, member, 403, 'C0003', listing());
  await expectAnswer('PUT', '/api/v1/houses/99999999', agent, 404, 'C0001', listing());
  await expectAnswer('PUT', `/api/v1/houses/${houseId}`, agent, 400, 'H0000', listing({ code: 'a'.repeat(10_001) }));

  expect(await ok('PUT', `/api/v1/houses/status/${houseId}`, agent)).toBe(houseId);
  await expectAnswer('PUT', `/api/v1/houses/status/${houseId}`, agent, 400, 'H0004');
  await expectAnswer('PUT', `/api/v1/houses/status/${houseId}`, member, 403, 'C0003');

  await expectAnswer('DELETE', `/api/v1/houses/${houseId}`, member, 403, 'C0003');
  await ok('DELETE', `/api/v1/houses/${houseId}`, agent);
  await expectAnswer('DELETE', `/api/v1/houses/${houseId}`, agent, 404, 'C0001');
});

test('scraps and reports', async () => {
  const houseId = (await ok('POST', '/api/v1/houses', agent, listing({ title: '스크랩할 집' }))) as number;
  expect(await ok('PUT', `/api/v1/scraps/${houseId}`, fan)).toBe(houseId);
  await expectAnswer('PUT', `/api/v1/scraps/${houseId}`, fan, 400, 'H0002');
  await expectAnswer('PUT', '/api/v1/scraps/99999999', fan, 404, 'C0001');
  await ok('GET', '/api/v1/houses/scrap?filter=ONGOING', fan);
  await expectAnswer('GET', '/api/v1/houses/scrap?filter=SOLD', fan, 400, 'C0002');
  await ok('DELETE', `/api/v1/scraps/${houseId}`, fan);
  await expectAnswer('DELETE', `/api/v1/scraps/${houseId}`, fan, 404, 'C0001');

  await expectAnswer('PUT', `/api/v1/houses/report/${houseId}`, agent, 403, 'H0001', { reportType: 'ETC', reportReason: '자작' });
  expect(await ok('PUT', `/api/v1/houses/report/${houseId}`, fan, { reportType: 'FAKE_SALE', reportReason: '없는 집' })).toBeUndefined();
  await expectAnswer('PUT', `/api/v1/houses/report/${houseId}`, fan, 400, 'H0003', { reportType: 'ETC', reportReason: '다시' });
  await expectAnswer('PUT', '/api/v1/houses/report/99999999', fan, 404, 'C0001', { reportType: 'ETC', reportReason: '없음' });
  await expectAnswer('PUT', `/api/v1/houses/report/${houseId}`, fan, 400, 'C0002', { reportType: 'SPAM', reportReason: '광고' });
});

test('approval queue and back office', async () => {
  const waiting = (await ok('POST', '/api/v1/houses', member, listing({ title: '승인 기다리는 집' }))) as number;
  await ok('GET', '/api/v1/houses/apply?page=0&size=10', admin);
  await expectAnswer('GET', '/api/v1/houses/apply', member, 403, 'J0006');
  expect(await ok('PUT', `/api/v1/houses/apply/${waiting}`, admin, { approve: true })).toBe(waiting);
  await expectAnswer('PUT', `/api/v1/houses/apply/${waiting}`, admin, 400, 'H0004', { approve: false, reason: '중복' });
  await expectAnswer('PUT', '/api/v1/houses/apply/99999999', admin, 404, 'C0001', { approve: true });

  expect(await ok('PUT', `/api/v1/houses/report/${waiting}`, fan, { reportType: 'ADVERTISING_BOARD', reportReason: '광고' })).toBeUndefined();
  const reports = (await ok('GET', '/api/v1/admin/reports?status=OPEN', admin)) as { content: Array<{ houseId: number }> };
  expect(reports.content.map((item) => item.houseId)).toContain(waiting);
  await expectAnswer('GET', '/api/v1/admin/reports', member, 403, 'J0006');
  await expectAnswer('GET', '/api/v1/admin/reports?status=ALL', admin, 400, 'C0002');
  expect(await ok('PUT', `/api/v1/admin/reports/${waiting}`, admin, { action: 'DISMISS' })).toBe(waiting);
  await expectAnswer('PUT', `/api/v1/admin/reports/${waiting}`, admin, 404, 'C0001', { action: 'REMOVE' });
  await ok('GET', '/api/v1/admin/reports?status=CLOSED&sort=lastReportedAt,asc', admin);
  await expectAnswer('GET', '/api/v1/admin/reports?sort=title,asc', admin, 400, 'C0002');

  // Issue 40: the reporter reads the outcome and the note; bulk decisions answer per id.
  const mine = (await ok('GET', '/api/v1/houses/report/mine', fan)) as Array<{ houseId: number; state: string }>;
  expect(mine.find((r) => r.houseId === waiting)).toMatchObject({ state: 'DISMISSED' });
  await expectAnswer('GET', '/api/v1/houses/report/mine', undefined, 401, 'J0000');
  const bulkWaiting = (await ok('POST', '/api/v1/houses', member, listing({ title: '일괄 승인할 집' }))) as number;
  await ok('GET', '/api/v1/houses/apply?sort=updatedAt,desc&rentalType=SALE&search=%EC%9D%BC%EA%B4%84', admin);
  expect(await ok('POST', '/api/v1/admin/houses/apply', admin, { ids: [bulkWaiting, 99999999], approve: false, reason: '주소 확인 불가' })).toEqual([
    { id: bulkWaiting, code: 'SUCCESS', message: '성공' },
    { id: 99999999, code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' },
  ]);
  await expectAnswer('POST', '/api/v1/admin/houses/apply', admin, 400, 'C0002', { ids: [], approve: true });
  await expectAnswer('POST', '/api/v1/admin/houses/apply', member, 403, 'J0006', { ids: [1], approve: true });
  await expectAnswer('POST', '/api/v1/admin/houses/apply', undefined, 401, 'J0000', { ids: [1], approve: true });

  const stats = (await ok('GET', '/api/v1/admin/stats/houses', admin)) as { total: number };
  expect(stats.total).toBeGreaterThan(0);
  await expectAnswer('GET', '/api/v1/admin/stats/houses', undefined, 401, 'J0000');
});

test('places: a point on listings, the map, near, cluster, region and nearby queries and their errors (issue 39)', async () => {
  const hahoe = { latitude: 36.5391, longitude: 128.5183 };
  const placed = (await ok('POST', '/api/v1/houses', agent, listing({ ...hahoe, title: '좌표를 준 집' }))) as number;
  expect(await ok('GET', `/api/v1/houses/${placed}`)).toMatchObject(hahoe);
  await expectAnswer('POST', '/api/v1/houses', agent, 400, 'C0002', listing({ latitude: 36.5 }));
  await expectAnswer('POST', '/api/v1/houses', agent, 400, 'C0002', listing({ latitude: 35.68, longitude: 139.76 }));
  // Without a point the server's geocoder (the local one here) finds it in the background.
  const geocoded = (await ok('POST', '/api/v1/houses', agent, listing({ city: '경상북도 안동시 도산면', title: '주소로 찾을 집' }))) as number;
  const located = await eventually(async () => {
    const detail = (await ok('GET', `/api/v1/houses/${geocoded}`, agent)) as { latitude: number | null; longitude: number | null };
    return detail.latitude !== null ? detail : undefined;
  }, 15_000);
  expect(located.longitude).toBeGreaterThan(128);

  const box = (await ok('GET', '/api/v1/houses/map?south=36&west=128&north=37&east=129&rentalType=SALE&maxPrice=10000&page=0&size=10')) as {
    content: Array<{ houseId: number; latitude: number }>;
  };
  expect(box.content.map((item) => item.houseId)).toEqual(expect.arrayContaining([placed, geocoded]));
  await expectAnswer('GET', '/api/v1/houses/map?south=37&west=128&north=36&east=129', undefined, 400, 'C0002');
  const near = (await ok('GET', `/api/v1/houses/near?latitude=${hahoe.latitude}&longitude=${hahoe.longitude}&radiusKm=30&page=0&size=10`)) as {
    content: Array<{ houseId: number; distanceKm: number }>;
  };
  expect(near.content[0]).toMatchObject({ houseId: placed, distanceKm: 0 });
  await expectAnswer('GET', '/api/v1/houses/near?latitude=36.5&longitude=128.5&radiusKm=201', undefined, 400, 'C0002');
  const clusters = (await ok('GET', '/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=7')) as Array<{ count: number }>;
  expect(clusters.reduce((sum, cell) => sum + cell.count, 0)).toBeGreaterThanOrEqual(2);
  await expectAnswer('GET', '/api/v1/houses/clusters?south=33&west=abc&north=39&east=132&zoom=7', undefined, 400, 'C0002');
  const regions = (await ok('GET', '/api/v1/houses/regions')) as Array<{ province: string; counties: Array<{ county: string }> }>;
  expect(regions.find((region) => region.province === '경상북도')?.counties.map((c) => c.county)).toContain('안동시');
  const nearby = (await ok('GET', `/api/v1/houses/${placed}/nearby`)) as Array<{ houseId: number }>;
  expect(nearby.map((item) => item.houseId)).toContain(geocoded);
  await expectAnswer('GET', '/api/v1/houses/99999999/nearby', undefined, 404, 'C0001');
  await expectAnswer('GET', '/api/v1/houses/abc/nearby', undefined, 400, 'C0002');
});

test('a suspended member cannot write', async () => {
  // The guard runs before the body is read: an empty body answers C0002 until the projection has the
  // suspension, then U0012, and stores nothing either way.
  const refusal = await eventually(async () => {
    const res = await call('POST', '/api/v1/houses', suspended, {});
    return res.status === 403 ? res : undefined;
  }, 15_000);
  expect(refusal.body.code).toBe('U0012');
});

test('every houses operation is covered', async () => {
  const contract = await apiContract();
  for (const tag of ['houses', 'scraps', 'house-approval', 'admin-reports', 'admin-stats-houses']) {
    expect({ tag, uncovered: contract.uncovered(tag) }).toEqual({ tag, uncovered: [] });
  }
});
