import { addAdmin, addMember, updatePerson, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService } from './helpers';

/** A known data set: nine public listings plus one of each kind that must never show. */
let h: HousesHarness;
let sunAgent: TestPerson;
let seaAgent: TestPerson;
let admin: TestPerson;
let general: TestPerson;
const ids: Record<string, number> = {};

const ids_ = (names: string): number[] => names.split('').map((n) => ids[n]);
const houseIds = (res: { body: { data: { content: Array<{ houseId: number }> } } }): number[] => res.body.data.content.map((i) => i.houseId);
/** Newest update first: the data set is created in alphabetical order, so the expectation is reversed. */
const newestFirst = (names: string): number[] => ids_(names).reverse();

beforeAll(async () => {
  h = await startServiceHarness('houseslistq', housesService);
  sunAgent = await addMember(h.connection, '햇살중개', { userType: 'AGENT' });
  seaAgent = await addMember(h.connection, '바다중개', { userType: 'AGENT' });
  admin = await addAdmin(h.connection, '관리자');
  general = await addMember(h.connection, '일반인');
  const reporter = await addMember(h.connection, '신고자');
  const data: Array<[string, TestPerson, Record<string, unknown>]> = [
    ['A', sunAgent, { rentalType: 'SALE', city: '서울특별시 강남구 역삼동', title: '강남 아파트', recommendedTag: ['WANT_TO_FARM'] }],
    ['B', sunAgent, { rentalType: 'JEONSE', city: '경기도 수원시 팔달구', title: '수원 전세', recommendedTag: ['HAVE_CHILDREN'] }],
    [
      'C',
      seaAgent,
      {
        rentalType: 'MONTHLYRENT',
        city: '부산광역시 해운대구',
        title: '해운대 바다뷰',
        recommendedTag: ['WANT_TO_LOOK_A_GOOD_VIEW', 'HAVE_CHILDREN'],
        monthlyPrice: 45.5,
      },
    ],
    ['D', seaAgent, { rentalType: 'SALE', city: '전북특별자치도 전주시 완산구', title: '전주 한옥', recommendedTag: [] }],
    ['E', admin, { rentalType: 'SALE', city: '제주특별자치도 서귀포시', title: '제주 귤밭 주택', recommendedTag: ['WANT_TO_FARM'] }],
    ['F', sunAgent, { rentalType: 'JEONSE', city: '강원특별자치도 강릉시', title: '강릉 Ocean View', recommendedTag: ['WANT_TO_READY_HOUSE'] }],
    [
      'G',
      seaAgent,
      { rentalType: 'SALE', city: '충청남도 공주시', title: '공주 시골집', recommendedTag: ['WANT_TO_FARM', 'WANT_TO_INTERIOR_FOR_THE_FIRST_TIME'] },
    ],
    ['H', sunAgent, { rentalType: 'MONTHLYRENT', city: '인천광역시 강화군', title: '강화 [특가] (급매)', recommendedTag: [], imageUrls: [] }],
    ['I', seaAgent, { rentalType: 'SALE', city: '대구광역시 수성구', title: '대구 주택', recommendedTag: ['HAVE_CHILDREN'] }],
  ];
  for (const [name, who, overrides] of data) ids[name] = await createListing(h, who, overrides);
  await api(h).complete(seaAgent, ids.D).expect(200);

  await createListing(h, general, { city: '서울특별시 마포구', title: '대기중 서울집' });
  const reported = await createListing(h, sunAgent, { city: '서울특별시 종로구', title: '신고된 서울집' });
  await api(h).report(reporter, reported, { reportType: 'FAKE_SALE', reportReason: '허위 매물' }).expect(200);
  const deleted = await createListing(h, sunAgent, { city: '서울특별시 중구', title: '삭제된 서울집' });
  await api(h).remove(sunAgent, deleted).expect(200);
  await api(h).create(sunAgent, { tmpYn: true, city: '서울특별시', title: '서울 초안' }).expect(200);
  const rejected = await createListing(h, general, { city: '서울특별시 용산구', title: '반려된 서울집' });
  await api(h).decide(admin, rejected, { approve: false }).expect(200);
});
afterAll(() => h.close());

test('no filters: nine public listings, newest update first, default size 8, the full page object', async () => {
  const res = await api(h).list();
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.data).sort()).toEqual(
    ['content', 'size', 'totalElements', 'totalPages', 'last', 'first', 'number', 'numberOfElements', 'empty', 'sort'].sort(),
  );
  expect(res.body.data).toMatchObject({
    size: 8,
    totalElements: 9,
    totalPages: 2,
    last: false,
    first: true,
    number: 0,
    numberOfElements: 8,
    empty: false,
    sort: { empty: false, unsorted: false, sorted: true },
  });
  expect(houseIds(res)).toEqual(newestFirst('ABCDEFGHI').slice(0, 8));
  const second = await api(h).list('page=1');
  expect(houseIds(second)).toEqual([ids.A]);
  expect(second.body.data).toMatchObject({ last: true, first: false, number: 1, numberOfElements: 1 });
  const beyond = await api(h).list('page=5');
  expect(beyond.body.data).toMatchObject({ content: [], empty: true, numberOfElements: 0, totalElements: 9 });
});

test('list items carry exactly the spec fields', async () => {
  const res = await api(h).list('search=해운대');
  expect(res.body.data.content).toHaveLength(1);
  const item = res.body.data.content[0];
  expect(Object.keys(item).sort()).toEqual(
    [
      'houseId',
      'rentalType',
      'city',
      'price',
      'monthlyPrice',
      'nickName',
      'createdAt',
      'isCompleted',
      'imageUrl',
      'title',
      'recommendedTag',
      'recommendedTagName',
    ].sort(),
  );
  expect(item).toMatchObject({
    houseId: ids.C,
    rentalType: 'MONTHLYRENT',
    city: '부산광역시 해운대구',
    price: 12000,
    monthlyPrice: 45.5,
    nickName: '바다중개',
    isCompleted: false,
    imageUrl: 'https://img.example.com/a.jpg',
    recommendedTag: ['WANT_TO_LOOK_A_GOOD_VIEW', 'HAVE_CHILDREN'],
    recommendedTagName: ['경치가 좋은 집을 원해요.', '아이와 함께 살아요.'],
  });
  expect((await api(h).list('search=강화')).body.data.content[0].imageUrl).toBeNull();
});

test.each([
  ['rentalType=SALE', 'ADEGI'],
  ['rentalType=JEONSE', 'BF'],
  ['city=수도권', 'ABH'],
  ['city=경상', 'CI'],
  ['city=전라', 'D'],
  ['city=충청', 'G'],
  ['city=제주', 'E'],
  ['city=강원', 'F'],
  ['city=강남', 'A'],
  ['city=서울특별시', 'A'],
  ['city=해운대', 'C'],
  ['city=광역시', 'CHI'],
  ['search=강화 [특가] (급매', 'H'],
  ['search=ocean', 'F'],
  ['search=바다중개', 'CDGI'],
  ['search=바다', 'CDGI'],
  ['search=햇살', 'ABFH'],
  ['search=.*', ''],
  ['recommendedTag=WANT_TO_FARM', 'AEG'],
  ['recommendedTag=WANT_TO_FARM&recommendedTag=HAVE_CHILDREN', 'ABCEGI'],
  ['recommendedTag=WANT_TO_FARM,HAVE_CHILDREN', 'ABCEGI'],
  ['recommendedTag=', 'ABCDEFGHI'],
  ['dealState=COMPLETED', 'D'],
  ['dealState=ONGOING', 'ABCEFGHI'],
  ['dealState=', 'ABCDEFGHI'],
  ['rentalType=SALE&city=수도권', 'A'],
  ['dealState=ONGOING&recommendedTag=HAVE_CHILDREN&city=경상', 'CI'],
  ['search=주택&rentalType=SALE', 'EI'],
  ['search=중개&dealState=COMPLETED', 'D'],
  ['city=수도권&recommendedTag=HAVE_CHILDREN,WANT_TO_FARM&rentalType=JEONSE', 'B'],
  ['city=없는도시', ''],
])('filter %s', async (query, expected) => {
  const res = await api(h).list(`${encodeURI(query)}&size=50`);
  expect(res.status).toBe(200);
  expect(houseIds(res)).toEqual(expected ? newestFirst(expected) : []);
  expect(res.body.data.totalElements).toBe(expected.length);
});

test('completed listings show isCompleted', async () => {
  const res = await api(h).list('dealState=COMPLETED');
  expect(res.body.data.content[0]).toMatchObject({ houseId: ids.D, isCompleted: true });
});

test('paging with size', async () => {
  const res = await api(h).list('size=2&page=1');
  expect(houseIds(res)).toEqual(newestFirst('ABCDEFGHI').slice(2, 4));
  expect(res.body.data).toMatchObject({ size: 2, number: 1, totalPages: 5, totalElements: 9 });
});

test('a size above the maximum is read as the maximum (50), not refused', async () => {
  const res = await api(h).list('size=100');
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ size: 50, totalElements: 9 });
});

test.each([
  'size=-1',
  'size=0',
  'size=abc',
  'page=-1',
  'page=1.5',
  'rentalType=RENT',
  'rentalType=SALE&rentalType=JEONSE',
  'dealState=APPLYING',
  'recommendedTag=NOPE',
  'recommendedTag=WANT_TO_FARM,NOPE',
  `search=${'가'.repeat(101)}`,
  `city=${'a'.repeat(101)}`,
])('bad query %s: 400 C0002', async (query) => {
  const res = await api(h).list(encodeURI(query));
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('C0002');
});

test('region word lookup does not reach Object.prototype', async () => {
  for (const city of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const res = await api(h).list(`city=${city}`);
    expect({ city, status: res.status, total: res.body.data?.totalElements }).toEqual({ city, status: 200, total: 0 });
  }
});

test('nickname search follows a nickname change', async () => {
  await updatePerson(h.connection, seaAgent, { nick_name: '산골중개' });
  expect(houseIds(await api(h).list('search=산골중개&size=50'))).toEqual(newestFirst('CDGI'));
  expect(houseIds(await api(h).list('search=바다중개&size=50'))).toEqual([]);
  expect((await api(h).list('search=해운대')).body.data.content[0].nickName).toBe('산골중개');
  // An older snapshot arriving late changes nothing (version 1 is older than any the kit has published).
  await updatePerson(h.connection, seaAgent, { nick_name: '바다중개', version: 1 });
  expect((await api(h).list('search=해운대')).body.data.content[0].nickName).toBe('산골중개');
});

test('an author missing from the projection renders as unknown', async () => {
  const ghost = { ...sunAgent, id: 987_654, token: '' };
  const { bearer } = await import('../../../test/support');
  ghost.token = bearer({ userId: ghost.id, userType: 'AGENT' });
  const houseId = await createListing(h, ghost, { title: '유령 매물' });
  const detail = await api(h).detail(houseId);
  expect(detail.body.data).toMatchObject({ nickName: '알 수 없음', userType: 'AGENT' });
  await api(h).remove(ghost, houseId).expect(200);
});

test('indexes back the public list filters and sort', async () => {
  const keys = (await h.models.houses.listIndexes()).map((i: { key: Record<string, number> }) => JSON.stringify(i.key));
  for (const field of ['rentalType', 'dealState', 'recommendedTag', 'city', 'authorId']) {
    expect(keys).toContain(JSON.stringify({ listed: 1, [field]: 1, updatedAt: -1, _id: -1 }));
  }
  expect(keys).toContain(JSON.stringify({ listed: 1, updatedAt: -1, _id: -1 }));
  const scrapKeys = (await h.models.scraps.listIndexes()).map((i: { key: Record<string, number>; unique?: boolean }) => [
    JSON.stringify(i.key),
    i.unique === true,
  ]);
  expect(scrapKeys).toContainEqual([JSON.stringify({ userId: 1, houseId: 1 }), true]);
});
