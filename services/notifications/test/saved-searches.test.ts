import type { Express } from 'express';
import request from 'supertest';
import { bearer, expectError } from '../../../test/support';
import { addMember, startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { initModels, notificationsModels, type NotificationsModels } from '../src/models';

let h: ServiceHarness<NotificationsModels>;
let app: Express;

const ANN = 301;
const BEN = 302;
const FULL = 303;

const post = (userId: number, body: unknown) =>
  request(app)
    .post('/api/v1/saved-searches')
    .set('Authorization', bearer({ userId }))
    .send(body as object);
const list = (userId: number) => request(app).get('/api/v1/saved-searches').set('Authorization', bearer({ userId }));
const stored = (userId: number) => h.models.savedSearches.countDocuments({ userId }).exec();

beforeAll(async () => {
  h = await startServiceHarness('notifsaved', { models: notificationsModels, initModels, buildApp });
  app = h.app;
  for (const [id, name] of [
    [ANN, 'ann'],
    [BEN, 'ben'],
    [FULL, 'full'],
  ] as const)
    await addMember(h.connection, name, { id });
});

afterAll(() => h.close());

it('saves a search with every condition and lists it back with its id, nothing it was not given', async () => {
  const res = await post(ANN, {
    name: '  강원 전원주택  ',
    province: '강원',
    county: '강릉시',
    rentalType: 'SALE',
    dealState: 'ONGOING',
    houseType: 'HOUSE',
    recommendedTag: 'WANT_TO_FARM',
    minPrice: 1000,
    maxPrice: 5000,
    latitude: 37.75,
    longitude: 128.9,
    radiusKm: 20,
    alert: true,
  });
  expect(res.status).toBe(200);
  const id = res.body.data as number;
  expect(typeof id).toBe('number');
  const second = await post(ANN, { name: '경상 아무거나', province: '경상', south: 35, west: 128, north: 36, east: 129.5, alert: false });
  expect(second.status).toBe(200);

  const listed = await list(ANN);
  expect(listed.status).toBe(200);
  expect(listed.body.data).toEqual([
    {
      id,
      name: '강원 전원주택',
      province: '강원',
      county: '강릉시',
      rentalType: 'SALE',
      dealState: 'ONGOING',
      houseType: 'HOUSE',
      recommendedTag: 'WANT_TO_FARM',
      minPrice: 1000,
      maxPrice: 5000,
      latitude: 37.75,
      longitude: 128.9,
      radiusKm: 20,
      alert: true,
    },
    { id: second.body.data, name: '경상 아무거나', province: '경상', south: 35, west: 128, north: 36, east: 129.5, alert: false },
  ]);
  // Keyed for matching by each province a region word stands for; a search without alerts under no key.
  const docs = await h.models.savedSearches.find({ userId: ANN }).sort({ _id: 1 }).lean().exec();
  expect(docs[0].matchKeys).toEqual(['강원특별자치도|SALE']);
  expect(docs[1].matchKeys).toEqual([]);
  expect((await list(BEN)).body.data).toEqual([]);
});

it("changes and deletes only the member's own searches", async () => {
  const id = (await post(BEN, { name: '전세', rentalType: 'JEONSE' })).body.data as number;
  expect((await h.models.savedSearches.findById(id).lean().exec())?.matchKeys).toEqual(['*|JEONSE']);

  const put = await request(app)
    .put(`/api/v1/saved-searches/${id}`)
    .set('Authorization', bearer({ userId: BEN }))
    .send({ name: '경기 월세', province: '경기', rentalType: 'MONTHLYRENT', alert: true });
  expect(put.status).toBe(200);
  expect((await list(BEN)).body.data).toEqual([{ id, name: '경기 월세', province: '경기', rentalType: 'MONTHLYRENT', alert: true }]);

  // Another member's id: refused, nothing changed or removed.
  const foreignPut = await request(app)
    .put(`/api/v1/saved-searches/${id}`)
    .set('Authorization', bearer({ userId: ANN }))
    .send({ name: '가로채기' });
  expectError(foreignPut, 403, 'C0003');
  expectError(
    await request(app)
      .delete(`/api/v1/saved-searches/${id}`)
      .set('Authorization', bearer({ userId: ANN })),
    403,
    'C0003',
  );
  expect((await list(BEN)).body.data[0].name).toBe('경기 월세');

  expect(
    (
      await request(app)
        .delete(`/api/v1/saved-searches/${id}`)
        .set('Authorization', bearer({ userId: BEN }))
    ).status,
  ).toBe(200);
  expect((await list(BEN)).body.data).toEqual([]);
  expectError(
    await request(app)
      .delete(`/api/v1/saved-searches/${id}`)
      .set('Authorization', bearer({ userId: BEN })),
    404,
    'C0001',
  );
  expectError(
    await request(app)
      .put('/api/v1/saved-searches/abc')
      .set('Authorization', bearer({ userId: BEN }))
      .send({ name: 'x' }),
    400,
    'C0002',
  );
});

it.each([
  ['an unknown region', { name: 'x', province: '아틀란티스' }],
  ['an inverted price range', { name: 'x', minPrice: 5000, maxPrice: 1000 }],
  ['an unknown rental type', { name: 'x', rentalType: 'RENT' }],
  ['a deal state no public listing has', { name: 'x', dealState: 'APPLYING' }],
  ['a blank name', { name: '   ' }],
  ['a half box', { name: 'x', south: 35, west: 128 }],
  ['an inverted box', { name: 'x', south: 36, west: 128, north: 35, east: 129 }],
  ['a circle without radius', { name: 'x', latitude: 37, longitude: 127 }],
  ['a circle outside Korea', { name: 'x', latitude: 10, longitude: 127, radiusKm: 5 }],
  ['a box and a circle', { name: 'x', south: 35, west: 128, north: 36, east: 129, latitude: 35.5, longitude: 128.5, radiusKm: 5 }],
  ['an unknown field', { name: 'x', city: '강원' }],
  ['alert as text', { name: 'x', alert: 'yes' }],
])('refuses %s with a Korean C0002 and stores nothing', async (_what, body) => {
  const before = await stored(ANN);
  const res = await post(ANN, body);
  expectError(res, 400, 'C0002');
  expect(res.body.message).toMatch(/[가-힣]/);
  expect(await stored(ANN)).toBe(before);
});

it('names the field of an unknown region in its message', async () => {
  const res = await post(ANN, { name: 'x', province: '아틀란티스' });
  expect(res.body.message).toContain('알 수 없는 지역');
});

it('refuses a 21st search, also when saves race, and keeps 20', async () => {
  for (let i = 0; i < 18; i++) expect((await post(FULL, { name: `조건 ${i}` })).status).toBe(200);
  // Two at 18 are both allowed; then four racing saves at 20 all refused.
  const two = await Promise.all([post(FULL, { name: '19' }), post(FULL, { name: '20' })]);
  expect(two.map((r) => r.status)).toEqual([200, 200]);
  const racing = await Promise.all([1, 2, 3, 4].map((i) => post(FULL, { name: `넘침 ${i}` })));
  for (const res of racing) expectError(res, 400, 'C0002', '관심 조건은 20개까지 저장할 수 있습니다.');
  expect(await stored(FULL)).toBe(20);
});

it('answers 401 without a token', async () => {
  expectError(await request(app).get('/api/v1/saved-searches'), 401, 'J0000');
});
