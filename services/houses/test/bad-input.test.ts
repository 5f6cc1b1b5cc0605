import { addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

let h: HousesHarness;
let agentUser: TestPerson;
let houseId: number;
let snapshot: unknown;

beforeAll(async () => {
  h = await startServiceHarness('housesbad', housesService);
  agentUser = await addMember(h.connection, '중개인', { userType: 'AGENT' });
  houseId = await createListing(h, agentUser, { title: '멀쩡한 집' });
  snapshot = await h.models.houses.findById(houseId).lean();
});
afterAll(() => h.close());

/** Every bad request must be a 4xx envelope and leave the stored listing untouched. */
async function expectRefused(res: { status: number; body: { code?: string; message?: string } }): Promise<void> {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.body.code).toMatch(/^[A-Z]\d{4}$/);
  expect(typeof res.body.message).toBe('string');
  expect(await h.models.houses.findById(houseId).lean()).toEqual(snapshot);
}

const raw = (method: 'post' | 'put', path: string, body: string, type = 'application/json') =>
  api(h).raw[method](path).set('Authorization', agentUser.token).set('Content-Type', type).send(body);

test.each([
  ['malformed JSON', '{"tmpYn": false, "title": '],
  ['a JSON string', '"hello"'],
  ['a JSON array', '[1,2,3]'],
  ['null', 'null'],
  ['number tmpYn', JSON.stringify(validListing({ tmpYn: 0 }))],
  ['string tmpYn', JSON.stringify(validListing({ tmpYn: 'false' }))],
  ['object title', JSON.stringify(validListing({ title: { $gt: '' } }))],
  ['operator key', JSON.stringify({ ...validListing(), $set: { deleted: true } })],
  ['__proto__ key', '{"__proto__": {"tmpYn": false}, "tmpYn": true}'],
  ['huge title', JSON.stringify(validListing({ title: 'x'.repeat(50_000) }))],
  ['huge image list', JSON.stringify(validListing({ imageUrls: Array.from({ length: 500 }, (_, i) => `u${i}`) }))],
  ['huge image url', JSON.stringify(validListing({ imageUrls: ['x'.repeat(5_000)] }))],
  ['javascript: image url', JSON.stringify(validListing({ imageUrls: ['javascript:alert(document.cookie)'] }))],
  ['data: image url', JSON.stringify(validListing({ imageUrls: ['data:text/html;base64,PHNjcmlwdD4='] }))],
  ['image url breaking out of an attribute', JSON.stringify(validListing({ imageUrls: ['https://img.example.com/a.jpg"onerror="alert(1)'] }))],
  ['draft with an image url holding angle brackets', JSON.stringify({ tmpYn: true, imageUrls: ['https://img.example.com/<svg onload=alert(1)>.jpg'] })],
  ['draft with a javascript: image url', JSON.stringify({ tmpYn: true, imageUrls: ['JavaScript:alert(1)'] })],
  ['NaN-like price', JSON.stringify(validListing({ price: '1e999' }))],
  ['1e999 price', JSON.stringify(validListing()).replace('"price":12000', '"price":1e999')],
  ['nested arrays in tags', JSON.stringify(validListing({ recommendedTag: [['WANT_TO_FARM']] }))],
  ['floor as padded text', JSON.stringify(validListing({ floorNum: ' 3' }))],
  ['floor as a fraction in text', JSON.stringify(validListing({ floorNum: '1.5' }))],
  ['price as true', JSON.stringify(validListing({ price: true }))],
  ['draft with object price', JSON.stringify({ tmpYn: true, price: { a: 1 } })],
  ['draft with huge city', JSON.stringify({ tmpYn: true, city: 'c'.repeat(10_000) })],
])('update with %s: 4xx, nothing changed', async (_label, body) => {
  await expectRefused(await raw('put', `/api/v1/houses/${houseId}`, body));
  await expectRefused(await raw('post', '/api/v1/houses', body));
});

test('a body over the size limit is refused with an envelope', async () => {
  const res = await raw('post', '/api/v1/houses', JSON.stringify(validListing({ code: 'x'.repeat(1_100_000) })));
  await expectRefused(res);
});

test('a non-JSON content type is not read as a listing', async () => {
  await expectRefused(await raw('put', `/api/v1/houses/${houseId}`, 'tmpYn=false', 'application/x-www-form-urlencoded'));
  await expectRefused(await raw('put', `/api/v1/houses/${houseId}`, JSON.stringify(validListing()), 'text/plain'));
});

test.each([
  '/api/v1/houses/-1',
  '/api/v1/houses/1e3',
  '/api/v1/houses/%00',
  '/api/v1/houses/9999999999999999999999',
  '/api/v1/houses/user-scrap/abc',
  '/api/v1/houses/report/abc',
  '/api/v1/houses/status/abc',
  '/api/v1/houses/apply/abc',
  '/api/v1/scraps/abc',
])('bad id in %s: 4xx', async (path) => {
  for (const method of ['get', 'put', 'delete'] as const) {
    const res = await api(h).raw[method](path).set('Authorization', agentUser.token).send({});
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  }
  expect(await h.models.houses.findById(houseId).lean()).toEqual(snapshot);
});

test.each([
  'search[$ne]=x',
  'city[]=서울',
  'search=%E0%A4%A',
  'page=99999999999',
  `recommendedTag=${Array.from({ length: 30 }, () => 'WANT_TO_FARM').join(',')}`,
  'search=(a+)+$',
])('odd public list query %s: never 5xx', async (query) => {
  const res = await api(h).raw.get(`/api/v1/houses?${query}`);
  expect(res.status).toBeLessThan(500);
  expect(res.body.code).toBeDefined();
});

test('unknown routes: 404 C0001', async () => {
  const res = await api(h).raw.get('/api/v1/houses/unknown/route/here');
  expect(res.status).toBe(404);
  expect(res.body.code).toBe('C0001');
  expect((await api(h).raw.post('/api/v1/scraps').set('Authorization', agentUser.token)).status).toBe(404);
});

test('a token signed with another key is refused before any work', async () => {
  const res = await api(h).raw.post('/api/v1/houses').set('Authorization', 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln').send(validListing());
  expect(res.status).toBe(401);
  expect(await h.models.houses.countDocuments()).toBe(1);
});
