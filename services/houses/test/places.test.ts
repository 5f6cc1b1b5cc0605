import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@binzip/shared';
import winston from 'winston';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { KakaoGeocoder, localGeocoder, type Geocoder } from '../src/domain/geocoder';
import { GEOCODE_BACKOFF_MS, geocodeDue } from '../src/domain/geocoding';
import { distanceKm, gridCells, regionOf } from '../src/domain/places';
import { findUnservedQueries, indexServes, shapeOf, type QueryShape } from '../../../shared/src/store/query-shapes';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

/** Issue 39: points on listings, the geocoder, and the map, near, cluster, region and nearby queries. */

let h: HousesHarness;
let agent: TestPerson;
let member: TestPerson;
let admin: TestPerson;

function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('capture', 'debug');
  logger.clear();
  logger.add(
    new winston.transports.Stream({
      stream: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    }),
  );
  return { logger, lines };
}

const detailOf = async (id: number) => (await api(h).detail(id).expect(200)).body.data as { latitude: number | null; longitude: number | null };
const stored = (id: number) => h.models.houses.findById(id).lean().exec();
const geocodeNow = (geocoder: Geocoder = localGeocoder, logger?: Logger) => geocodeDue(logger ? { ...h.ctx, logger } : h.ctx, geocoder);

beforeAll(async () => {
  h = await startServiceHarness('housesplaces', housesService);
  agent = await addMember(h.connection, '지도중개', { userType: 'AGENT' });
  member = await addMember(h.connection, '지도회원');
  admin = await addAdmin(h.connection, '지도관리자');
});
afterAll(() => h.close());

beforeEach(async () => {
  await h.models.houses.deleteMany({});
});

describe('points on listings', () => {
  test('a client-given point is stored with its source and shown on the detail', async () => {
    const id = await createListing(h, agent, { latitude: 37.7519, longitude: 128.8761 });
    expect(await detailOf(id)).toMatchObject({ latitude: 37.7519, longitude: 128.8761 });
    expect(await stored(id)).toMatchObject({ pointSource: 'CLIENT', geocodeDueAt: null, geoCells: gridCells({ latitude: 37.7519, longitude: 128.8761 }) });
  });

  test('text numbers are read as numbers; both or neither; outside Korea is C0002 naming the field', async () => {
    const id = await createListing(h, agent, { latitude: '37.5', longitude: '127' });
    expect(await detailOf(id)).toMatchObject({ latitude: 37.5, longitude: 127 });
    expectError(await api(h).create(agent, validListing({ latitude: 37.5 })), 400, 'C0002', '경도 값이 누락되었습니다. 위도와 경도는 함께 보내야 합니다.');
    expectError(await api(h).create(agent, validListing({ longitude: 127 })), 400, 'C0002');
    const outside = await api(h).create(agent, validListing({ latitude: 35.68, longitude: 139.76 }));
    expectError(outside, 400, 'C0002');
    expect(outside.body.message).toContain('경도');
    const south = await api(h).create(agent, validListing({ latitude: 20, longitude: 127 }));
    expectError(south, 400, 'C0002');
    expect(south.body.message).toContain('위도');
  });

  test('without a point the write answers at once; the geocoder finds it later; kept while the address is unchanged, found again when it changes', async () => {
    const id = await createListing(h, agent, { city: '강원특별자치도 강릉시 주문진읍', detail: '교항리 1' });
    expect(await detailOf(id)).toEqual(expect.objectContaining({ latitude: null, longitude: null }));
    expect(await geocodeNow()).toBe(1);
    const first = await detailOf(id);
    expect(first.latitude).not.toBeNull();
    expect(distanceKm({ latitude: 37.7519, longitude: 128.8761 }, first as { latitude: number; longitude: number })).toBeLessThan(10);
    expect(await stored(id)).toMatchObject({ pointSource: 'GEOCODER', geocodeDueAt: null });

    await api(h)
      .update(agent, id, validListing({ city: '강원특별자치도 강릉시 주문진읍', detail: '교항리 1', title: '제목만 바꿈' }))
      .expect(200);
    expect(await detailOf(id)).toMatchObject({ latitude: first.latitude, longitude: first.longitude });
    expect(await geocodeNow()).toBe(0);

    await api(h)
      .update(agent, id, validListing({ city: '제주특별자치도 서귀포시', detail: '중문동 2' }))
      .expect(200);
    expect(await detailOf(id)).toEqual(expect.objectContaining({ latitude: null, longitude: null }));
    expect(await geocodeNow()).toBe(1);
    const moved = await detailOf(id);
    expect(moved.latitude).toBeLessThan(34);

    // A client point on an edit replaces the geocoded one; the same address without a point keeps it.
    await api(h)
      .update(agent, id, validListing({ city: '제주특별자치도 서귀포시', detail: '중문동 2', latitude: 33.25, longitude: 126.41 }))
      .expect(200);
    await api(h)
      .update(agent, id, validListing({ city: '제주특별자치도 서귀포시', detail: '중문동 2' }))
      .expect(200);
    expect(await detailOf(id)).toMatchObject({ latitude: 33.25, longitude: 126.41 });
  });

  test('drafts are not geocoded until saved', async () => {
    const res = await api(h).create(agent, { tmpYn: true, city: '경상북도 경주시', detail: '황남동' }).expect(200);
    const id = res.body.data as number;
    expect(await geocodeNow()).toBe(0);
    await api(h)
      .update(agent, id, validListing({ city: '경상북도 경주시', detail: '황남동' }))
      .expect(200);
    expect(await geocodeNow()).toBe(1);
    expect((await detailOf(id)).latitude).not.toBeNull();
  });

  test('the local geocoder is deterministic, spreads addresses and knows no address without a province', async () => {
    const a = await localGeocoder.geocode('강원특별자치도 평창군 대관령면 1');
    expect(await localGeocoder.geocode('강원특별자치도  평창군 대관령면 1')).toEqual(a);
    expect(await localGeocoder.geocode('강원특별자치도 평창군 대관령면 2')).not.toEqual(a);
    expect(await localGeocoder.geocode('어딘가 123')).toEqual({ kind: 'not-found' });
  });

  test('regions: the province (current name) and the county of an address', () => {
    expect(regionOf('강원도 강릉시 주문진읍')).toEqual({ province: '강원특별자치도', county: '강릉시' });
    expect(regionOf('서울특별시 강남구 역삼동')).toEqual({ province: '서울특별시', county: '강남구' });
    expect(regionOf('세종특별자치시 조치원읍')).toEqual({ province: '세종특별자치시', county: null });
    expect(regionOf('Tokyo')).toEqual({ province: null, county: null });
  });
});

describe('the Kakao geocoder against a local server speaking its format', () => {
  let server: Server;
  let baseUrl: string;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  /** Answers held back (the timeout case), ended after each test so no socket outlives the file. */
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterEach(() => {
    for (const res of held.splice(0)) res.destroy();
  });

  const kakaoDocuments = (x: string, y: string) =>
    JSON.stringify({
      meta: { total_count: 1, pageable_count: 1, is_end: true },
      documents: [{ address_name: '강원 강릉시 주문진읍 교항리 1', address_type: 'REGION_ADDR', x, y, address: {}, road_address: null }],
    });
  const json = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(body);
  };
  const kakao = (options: Partial<ConstructorParameters<typeof KakaoGeocoder>[0]> = {}) =>
    new KakaoGeocoder({ key: 'test-key', baseUrl, timeoutMs: 5_000, retries: 1, ...options });

  test('a found address: x is the longitude, y the latitude; the key and the query are sent', async () => {
    answer = (_req, res) => json(res, 200, kakaoDocuments('128.8784', '37.8925'));
    const id = await createListing(h, agent, { city: '강원특별자치도 강릉시 주문진읍', detail: '교항리 1' });
    expect(await geocodeNow(kakao())).toBe(1);
    expect(await detailOf(id)).toMatchObject({ latitude: 37.8925, longitude: 128.8784 });
    expect(seen[0].authorization).toBe('KakaoAK test-key');
    expect(new URL(seen[0].url, baseUrl).searchParams.get('query')).toBe('강원특별자치도 강릉시 주문진읍 교항리 1');
  });

  test.each([
    ['a point in the sea (East Sea, outside the province)', (res: ServerResponse) => json(res, 200, kakaoDocuments('131.5', '37.6')), /outside 강원특별자치도/],
    ['a point in another country (Tokyo)', (res: ServerResponse) => json(res, 200, kakaoDocuments('139.76', '35.68')), /outside Korea/],
    ['no such address', (res: ServerResponse) => json(res, 200, JSON.stringify({ meta: { total_count: 0 }, documents: [] })), /no such address/],
    ['a refused key', (res: ServerResponse) => json(res, 401, JSON.stringify({ errorType: 'AccessDeniedError', message: 'wrong appKey' })), /key refused/],
    ['garbage', (res: ServerResponse) => json(res, 200, '<html>oops</html>'), /not JSON/],
    ['no answer (timeout)', (res: ServerResponse) => void held.push(res), /no answer within 300 ms \(after 2 attempts\)/],
  ])('%s: the listing is saved, its point stays unknown, the log says why, and a retry runs later', async (_name, reply, reason) => {
    answer = (_req, res) => reply(res);
    const id = await createListing(h, agent, { city: '강원특별자치도 강릉시 주문진읍', detail: '교항리 1' });
    const { logger, lines } = capturingLogger();
    expect(await geocodeNow(kakao({ timeoutMs: 300 }), logger)).toBe(1);
    expect(await detailOf(id)).toMatchObject({ latitude: null, longitude: null });
    const warning = lines.find((line) => line.message === 'listing not located; retrying later');
    expect(warning).toMatchObject({ houseId: id, geocoder: 'kakao', attempts: 1 });
    expect(String(warning?.reason)).toMatch(reason);
    expect((await stored(id))?.geocodeError).toMatch(reason);

    // Not asked again before the back-off ends; asked (and answered well) after it.
    expect(await geocodeNow(kakao())).toBe(0);
    h.clock.advance(GEOCODE_BACKOFF_MS[0] + 1);
    answer = (_req, res) => json(res, 200, kakaoDocuments('128.8784', '37.8925'));
    expect(await geocodeNow(kakao())).toBe(1);
    expect(await detailOf(id)).toMatchObject({ latitude: 37.8925, longitude: 128.8784 });
  });

  test('a 5xx is retried within the call; the per-minute budget stops calls', async () => {
    let calls = 0;
    answer = (_req, res) => {
      calls += 1;
      if (calls === 1) json(res, 503, '{}');
      else json(res, 200, kakaoDocuments('128.8784', '37.8925'));
    };
    expect(await kakao().geocode('강원특별자치도 강릉시')).toEqual({ kind: 'found', point: { latitude: 37.8925, longitude: 128.8784 } });
    const limited = kakao({ perMinute: 1 });
    await limited.geocode('강원특별자치도 강릉시');
    expect(await limited.geocode('강원특별자치도 강릉시')).toEqual({ kind: 'failed', reason: 'kakao: per-minute budget used up' });
  });

  test('a refused connection fails after the retries', async () => {
    const result = await new KakaoGeocoder({ key: 'k', baseUrl: 'http://127.0.0.1:1', timeoutMs: 300, retries: 1 }).geocode('서울특별시');
    expect(result).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/after 2 attempts/) });
  });
});

describe('place queries', () => {
  const ids: Record<string, number> = {};
  const P = {
    gangneung: { latitude: 37.7519, longitude: 128.8761 },
    jumunjin: { latitude: 37.8925, longitude: 128.8255 },
    sokcho: { latitude: 38.207, longitude: 128.5918 },
    pyeongchang: { latitude: 37.3708, longitude: 128.3903 },
    seoul: { latitude: 37.5665, longitude: 126.978 },
    jeju: { latitude: 33.4996, longitude: 126.5312 },
  };

  beforeEach(async () => {
    const data: Array<[string, Record<string, unknown>]> = [
      ['gangneung', { ...P.gangneung, city: '강원특별자치도 강릉시', rentalType: 'SALE', price: 10000 }],
      ['jumunjin', { ...P.jumunjin, city: '강원특별자치도 강릉시 주문진읍', rentalType: 'SALE', price: 20000 }],
      ['sokcho', { ...P.sokcho, city: '강원도 속초시', rentalType: 'JEONSE', price: 30000 }],
      ['pyeongchang', { ...P.pyeongchang, city: '강원특별자치도 평창군', rentalType: 'SALE', price: 40000, recommendedTag: ['HAVE_CHILDREN'] }],
      ['seoul', { ...P.seoul, city: '서울특별시 중구', rentalType: 'SALE', price: 50000 }],
      ['jeju', { ...P.jeju, city: '제주특별자치도 제주시', rentalType: 'MONTHLYRENT', price: 60000 }],
    ];
    for (const [name, overrides] of data) ids[name] = await createListing(h, agent, overrides);
    // Never shown: waiting for approval, deleted, located by nobody yet.
    await createListing(h, member, { ...P.gangneung, city: '강원특별자치도 강릉시', title: '대기' });
    const gone = await createListing(h, agent, { ...P.gangneung, city: '강원특별자치도 강릉시', title: '삭제' });
    await api(h).remove(agent, gone).expect(200);
    await createListing(h, agent, { city: '강원특별자치도 강릉시', title: '좌표 없음' });
  });

  const idsOf = (res: { body: { data: { content: Array<{ houseId: number }> } } }) => res.body.data.content.map((i) => i.houseId);
  const get = (path: string) => api(h).raw.get(path);

  test('map: the public listings inside the box, newest update first, each with its point; filters and price range apply', async () => {
    const gangwon = 'south=37&west=127.5&north=38.5&east=129.5';
    const res = await get(`/api/v1/houses/map?${gangwon}`).expect(200);
    expect(idsOf(res)).toEqual([ids.pyeongchang, ids.sokcho, ids.jumunjin, ids.gangneung]);
    expect(res.body.data.content[0]).toMatchObject({ ...P.pyeongchang, title: '평창 전원주택', recommendedTagName: ['아이와 함께 살아요.'] });
    expect(res.body.data.totalElements).toBe(4);
    expect(idsOf(await get(`/api/v1/houses/map?${gangwon}&rentalType=SALE&maxPrice=30000`).expect(200))).toEqual([ids.jumunjin, ids.gangneung]);
    expect(idsOf(await get(`/api/v1/houses/map?${gangwon}&minPrice=20000&maxPrice=30000`).expect(200))).toEqual([ids.sokcho, ids.jumunjin]);
    expect(idsOf(await get(`/api/v1/houses/map?${gangwon}&recommendedTag=HAVE_CHILDREN`).expect(200))).toEqual([ids.pyeongchang]);
    // The whole country, a page of two, and a page past the end.
    const country = await get('/api/v1/houses/map?south=33&west=124&north=39&east=132&size=2&page=1').expect(200);
    expect(country.body.data).toMatchObject({ totalElements: 6, numberOfElements: 2 });
    const past = await get('/api/v1/houses/map?south=33&west=124&north=39&east=132&page=9').expect(200);
    expect(past.body.data).toMatchObject({ content: [], empty: true, totalElements: 6 });
    // A box outside Korea holds nothing.
    expect((await get('/api/v1/houses/map?south=40&west=140&north=41&east=141').expect(200)).body.data.content).toEqual([]);
  });

  test('the list takes the price range too', async () => {
    const res = await api(h).list('minPrice=30000&maxPrice=50000').expect(200);
    expect(res.body.data.content.map((i: { houseId: number }) => i.houseId)).toEqual([ids.seoul, ids.pyeongchang, ids.sokcho]);
    expectError(await api(h).list('minPrice=5&maxPrice=1'), 400, 'C0002', '최대 가격 값이 최소 가격보다 작습니다.');
    expectError(await api(h).list('minPrice=abc'), 400, 'C0002');
  });

  test('near: within the radius, nearest first, each with its distance', async () => {
    const res = await get(`/api/v1/houses/near?latitude=${P.gangneung.latitude}&longitude=${P.gangneung.longitude}&radiusKm=60`).expect(200);
    const within60 = (Object.keys(P) as Array<keyof typeof P>)
      .map((name) => ({ name, km: distanceKm(P.gangneung, P[name]) }))
      .filter((c) => c.km <= 60)
      .sort((a, b) => a.km - b.km)
      .map((c) => ids[c.name]);
    expect(within60.length).toBeGreaterThanOrEqual(3);
    expect(idsOf(res)).toEqual(within60);
    const distances = res.body.data.content.map((i: { distanceKm: number }) => i.distanceKm);
    expect(distances[0]).toBe(0);
    expect(distances[1]).toBeCloseTo(distanceKm(P.gangneung, P.jumunjin), 2);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    const wide = await get(`/api/v1/houses/near?latitude=${P.gangneung.latitude}&longitude=${P.gangneung.longitude}&radiusKm=200&size=4&page=1`).expect(200);
    expect(idsOf(wide)).toEqual([ids.seoul]);
    expect(wide.body.data.totalElements).toBe(5);
    const filtered = await get(`/api/v1/houses/near?latitude=37.75&longitude=128.87&radiusKm=200&rentalType=JEONSE`).expect(200);
    expect(idsOf(filtered)).toEqual([ids.sokcho]);
  });

  test('clusters: counts per grid cell, coarser when zoomed out', async () => {
    const zoomedOut = await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=4').expect(200);
    const total = (res: { body: { data: Array<{ count: number }> } }) => res.body.data.reduce((sum, c) => sum + c.count, 0);
    expect(total(zoomedOut)).toBe(6);
    expect(zoomedOut.body.data.length).toBeLessThan(6);
    const zoomedIn = await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=12').expect(200);
    expect(total(zoomedIn)).toBe(6);
    expect(zoomedIn.body.data).toHaveLength(6);
    expect(zoomedIn.body.data).toContainEqual({ ...P.jeju, count: 1 });
    const sales = await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=12&rentalType=SALE').expect(200);
    expect(total(sales)).toBe(4);
    // Default zoom 6: about 1.4 degree cells, counted as the grid says.
    const country = await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132').expect(200);
    const perCell = new Map<string, number>();
    for (const point of Object.values(P)) perCell.set(gridCells(point)[6 - 4], (perCell.get(gridCells(point)[6 - 4]) ?? 0) + 1);
    expect(country.body.data.map((c: { count: number }) => c.count).sort()).toEqual([...perCell.values()].sort());
    expect(Math.max(...perCell.values())).toBeGreaterThan(1);
  });

  test('regions: public listings per province and county (older names counted under the current one; located or not)', async () => {
    const res = await get('/api/v1/houses/regions').expect(200);
    expect(res.body.data).toEqual([
      { province: '서울특별시', count: 1, counties: [{ county: '중구', count: 1 }] },
      {
        province: '강원특별자치도',
        count: 5,
        counties: [
          { county: '강릉시', count: 3 },
          { county: '속초시', count: 1 },
          { county: '평창군', count: 1 },
        ],
      },
      { province: '제주특별자치도', count: 1, counties: [{ county: '제주시', count: 1 }] },
    ]);
  });

  test('nearby: up to four closest public listings, of the same rental type when there are enough', async () => {
    const res = await get(`/api/v1/houses/${ids.gangneung}/nearby`).expect(200);
    // Only three other SALE listings exist, so the closest of any type.
    expect(res.body.data.map((i: { houseId: number }) => i.houseId)).toEqual([ids.jumunjin, ids.sokcho, ids.pyeongchang, ids.seoul]);
    const wonju = await createListing(h, agent, { latitude: 37.3422, longitude: 127.9202, city: '강원특별자치도 원주시', rentalType: 'SALE' });
    const sameType = await get(`/api/v1/houses/${ids.gangneung}/nearby`).expect(200);
    expect(sameType.body.data.map((i: { houseId: number }) => i.houseId)).toEqual([ids.jumunjin, ids.pyeongchang, wonju, ids.seoul]);
    expectError(await get('/api/v1/houses/999999/nearby'), 404, 'C0001');
    const unlocated = await createListing(h, agent, { city: '강원특별자치도 강릉시' });
    expect((await get(`/api/v1/houses/${unlocated}/nearby`).expect(200)).body.data).toEqual([]);
  });

  test.each([
    ['south=38&west=127&north=37&east=129', '북쪽 위도 값이 남쪽 위도보다 작습니다.'],
    ['south=37&west=129&north=38&east=127', '동쪽 경도 값이 서쪽 경도보다 작습니다.'],
    ['south=abc&west=127&north=38&east=129', '남쪽 위도'],
    ['west=127&north=38&east=129', '남쪽 위도'],
    ['south=37&west=127&north=91&east=129', '북쪽 위도'],
    ['south=37&west=1e2&north=38&east=129', '서쪽 경도'],
  ])('map %s: C0002 naming the field', async (query, text) => {
    for (const path of ['map', 'clusters']) {
      const res = await get(`/api/v1/houses/${path}?${query}`);
      expectError(res, 400, 'C0002');
      expect(res.body.message).toContain(text);
    }
  });

  test.each([
    ['latitude=37.7&longitude=128.8&radiusKm=0', '반경(km)'],
    ['latitude=37.7&longitude=128.8&radiusKm=-5', '반경(km)'],
    ['latitude=37.7&longitude=128.8&radiusKm=200.5', '반경(km)'],
    ['latitude=37.7&longitude=128.8', '반경(km)'],
    ['latitude=35.68&longitude=139.76&radiusKm=10', '경도'],
    ['latitude=20&longitude=128&radiusKm=10', '위도'],
    ['latitude=north&longitude=128&radiusKm=10', '위도'],
  ])('near %s: C0002 naming the field', async (query, label) => {
    const res = await get(`/api/v1/houses/near?${query}`);
    expectError(res, 400, 'C0002');
    expect(res.body.message).toContain(label);
  });

  test('clusters: a zoom that is not a whole number in 0..22 is C0002', async () => {
    expectError(await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=23'), 400, 'C0002');
    expectError(await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=6.5'), 400, 'C0002');
  });

  test('each place query is bounded by the grid-cell index (the query-shape gate, on the commands really sent)', async () => {
    const shapes: QueryShape[] = [];
    const client = h.connection.getClient();
    const record = (event: { command: Record<string, unknown> }) => {
      const shape = shapeOf(event.command);
      if (shape?.collection === 'houses') shapes.push(shape);
    };
    client.on('commandStarted', record);
    try {
      await get('/api/v1/houses/map?south=37&west=127.5&north=38.5&east=129.5&rentalType=SALE&minPrice=1').expect(200);
      await get('/api/v1/houses/near?latitude=37.75&longitude=128.87&radiusKm=50&recommendedTag=WANT_TO_FARM').expect(200);
      await get('/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=9&dealState=ONGOING').expect(200);
      await get(`/api/v1/houses/${ids.gangneung}/nearby`).expect(200);
      await get('/api/v1/houses/regions').expect(200);
    } finally {
      client.off('commandStarted', record);
    }
    const indexes = h.models.houses.schema
      .indexes()
      .map(([keys]) => Object.entries(keys as Record<string, number>).map(([field, dir]): [string, 1 | -1] => [field, dir < 0 ? -1 : 1]));
    const declarations = [{ kind: 'indexes' as const, collection: 'houses', indexes }];
    expect(findUnservedQueries(shapes, declarations)).toEqual([]);
    // The box, circle and cluster reads name grid cells: the {listed, geoCells, updatedAt, _id} index bounds them to those cells.
    const geoIndex: Array<[string, 1 | -1]> = [
      ['listed', 1],
      ['geoCells', 1],
      ['updatedAt', -1],
      ['_id', -1],
    ];
    const placeReads = shapes.filter((shape) => shape.branches.some((branch) => 'geoCells' in branch));
    // The box's page and count (countDocuments is an aggregate), the circle's candidates, the clusters, the nearby rings.
    expect(placeReads.map((shape) => shape.command).sort()).toEqual(expect.arrayContaining(['aggregate', 'aggregate', 'find', 'find', 'find']));
    for (const shape of placeReads)
      for (const branch of shape.branches) expect([branch.geoCells, indexServes(geoIndex, branch, shape.sort)]).toEqual(['eq', true]);
    // Regions count over {listed, province, county}.
    const regions = shapes.find((shape) => shape.command === 'aggregate' && !shape.branches.some((branch) => 'geoCells' in branch));
    expect(regions?.branches).toEqual([{ listed: 'eq' }]);
  });

  test('an administrator is served like anyone (public reads)', async () => {
    const res = await api(h).raw.get('/api/v1/houses/regions').set('Authorization', admin.token).expect(200);
    expect(res.body.data).toHaveLength(3);
  });
});
