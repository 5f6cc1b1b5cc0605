import { expectError } from '../../../test/support';
import { fieldLabels } from '../src/routes/schemas';
import { addAdmin, addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

let h: HousesHarness;
let owner: TestPerson;
let fan: TestPerson;
let agentUser: TestPerson;
let admin: TestPerson;
let general: TestPerson;

const houseIds = (res: { body: { data: { content: Array<{ houseId: number }> } } }): number[] => res.body.data.content.map((i) => i.houseId);

beforeAll(async () => {
  h = await startServiceHarness('housesinter', housesService);
  owner = await addMember(h.connection, '집주인중개', { userType: 'AGENT' });
  fan = await addMember(h.connection, '구경꾼');
  agentUser = await addMember(h.connection, '다른중개', { userType: 'AGENT' });
  admin = await addAdmin(h.connection, '관리자', { userType: 'SERVER' });
  general = await addMember(h.connection, '일반작성자');
});
afterAll(() => h.close());

describe('scraps', () => {
  test('scrap, H0002 twice, isScraped per caller, unscrap, C0001 for a non-scrap', async () => {
    const houseId = await createListing(h, owner);
    expect((await api(h).scrap(fan, houseId)).body).toEqual({ code: 'SUCCESS', message: '성공', data: houseId });
    expectError(await api(h).scrap(fan, houseId), 400, 'H0002');
    expect(await h.models.scraps.countDocuments({ houseId })).toBe(1);

    expect((await api(h).userScrapDetail(houseId, fan)).body.data.isScraped).toBe(true);
    expect((await api(h).userScrapDetail(houseId, agentUser)).body.data.isScraped).toBe(false);
    expect((await api(h).detail(houseId)).body.data.isScraped).toBe(false);
    expectError(await api(h).userScrapDetail(houseId), 401, 'J0000');

    expect((await api(h).unscrap(fan, houseId)).body).toEqual({ code: 'SUCCESS', message: '성공' });
    expectError(await api(h).unscrap(fan, houseId), 404, 'C0001');
    expect((await api(h).userScrapDetail(houseId, fan)).body.data.isScraped).toBe(false);
  });

  test('only readable saved listings can be scraped', async () => {
    const waiting = await createListing(h, general);
    expectError(await api(h).scrap(fan, waiting), 404, 'C0001');
    expectError(await api(h).scrap(fan, 99_999_999), 404, 'C0001');
    const deleted = await createListing(h, owner);
    await api(h).remove(owner, deleted).expect(200);
    expectError(await api(h).scrap(fan, deleted), 404, 'C0001');
  });

  test('scrap list: newest scrap first, deal state filter, pageable, gone listings left out', async () => {
    const collector = await addMember(h.connection, '수집가');
    const a = await createListing(h, owner, { title: '스크랩 A' });
    const b = await createListing(h, owner, { title: '스크랩 B' });
    const c = await createListing(h, agentUser, { title: '스크랩 C' });
    const d = await createListing(h, owner, { title: '스크랩 D' });
    for (const id of [b, a, c, d]) await api(h).scrap(collector, id).expect(200);
    await api(h).complete(agentUser, c).expect(200);
    await api(h).remove(owner, d).expect(200);

    const all = await api(h).scrapList(collector);
    expect(all.status).toBe(200);
    expect(houseIds(all)).toEqual([c, a, b]);
    expect(all.body.data).toMatchObject({ size: 10, totalElements: 3, totalPages: 1, numberOfElements: 3, first: true, last: true });
    expect(all.body.data.pageable).toMatchObject({ pageNumber: 0, pageSize: 10, offset: 0 });
    expect(all.body.data.content[0]).toMatchObject({ houseId: c, isCompleted: true, nickName: '다른중개', title: '스크랩 C' });

    expect(houseIds(await api(h).scrapList(collector, 'filter=COMPLETED'))).toEqual([c]);
    expect(houseIds(await api(h).scrapList(collector, 'filter=ONGOING'))).toEqual([a, b]);
    expect(houseIds(await api(h).scrapList(collector, 'filter='))).toEqual([c, a, b]);
    expect(houseIds(await api(h).scrapList(collector, 'filter=APPLYING'))).toEqual([]);
    expect(houseIds(await api(h).scrapList(collector, 'size=2&page=1'))).toEqual([b]);
    expectError(await api(h).scrapList(collector, 'filter=SOLD'), 400, 'C0002');
    expect(houseIds(await api(h).scrapList(fan))).not.toContain(a);
    expectError(await api(h).raw.get('/api/v1/houses/scrap'), 401, 'J0000');
  });
});

describe('reports', () => {
  test('one report takes the listing out of the public list, not off its page; H0003 twice; H0001 own listing', async () => {
    const houseId = await createListing(h, owner, { title: '신고 대상' });
    const witness = await addMember(h.connection, '목격자');
    expectError(await api(h).report(owner, houseId, { reportType: 'ETC', reportReason: '자작극' }), 403, 'H0001');

    expect((await api(h).report(fan, houseId, { reportType: 'FAKE_SALE', reportReason: '없는 집입니다' })).body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect((await api(h).list('search=신고 대상')).body.data.totalElements).toBe(0);
    // Out of the public list only: the reporter and anyone else still read it by id.
    expect((await api(h).detail(houseId, fan)).body.data).toMatchObject({ houseId, title: '신고 대상' });
    expect((await api(h).detail(houseId, witness)).status).toBe(200);
    expect((await api(h).detail(houseId)).status).toBe(200);
    expectError(await api(h).report(fan, houseId, { reportType: 'ETC', reportReason: '다시' }), 400, 'H0003');
    // A second reporter is still recorded; the author and admins can still read it.
    await api(h).report(witness, houseId, { reportType: 'ADVERTISING_BOARD', reportReason: '광고' }).expect(200);
    expect(await h.models.reports.countDocuments({ houseId })).toBe(2);
    expect((await api(h).detail(houseId, owner)).status).toBe(200);
    expect((await api(h).detail(houseId, admin)).status).toBe(200);
    // A reported listing cannot be completed, and an edit does not bring it back.
    expectError(await api(h).complete(owner, houseId), 400, 'H0004');
    await api(h)
      .update(owner, houseId, validListing({ title: '신고 대상 수정' }))
      .expect(200);
    expect((await api(h).list('search=신고 대상')).body.data.totalElements).toBe(0);
  });

  test.each([
    [{ reportType: 'SPAM', reportReason: '광고' }, 'reportType'],
    [{ reportReason: '광고' }, 'reportType'],
    [{ reportType: 'ETC', reportReason: '' }, 'reportReason'],
    [{ reportType: 'ETC', reportReason: '   ' }, 'reportReason'],
    [{ reportType: 'ETC', reportReason: 'x'.repeat(101) }, 'reportReason'],
    [{ reportType: 'ETC', reportReason: 3 }, 'reportReason'],
    [{ reportType: 'ETC', reportReason: '광고', extra: true }, 'extra'],
  ])('bad report %j: C0002 naming %s, nothing stored', async (body, field) => {
    const houseId = await createListing(h, owner);
    const res = await api(h).report(fan, houseId, body);
    expectError(res, 400, 'C0002');
    expect(res.body.message).toContain(fieldLabels[field] ?? field);
    expect(await h.models.reports.countDocuments({ houseId })).toBe(0);
    expect((await api(h).detail(houseId, fan)).status).toBe(200);
  });

  test('100 characters is accepted; unknown, waiting and draft listings are C0001 for others', async () => {
    const houseId = await createListing(h, owner);
    await api(h)
      .report(fan, houseId, { reportType: 'ETC', reportReason: '가'.repeat(100) })
      .expect(200);
    expectError(await api(h).report(fan, 99_999_999, { reportType: 'ETC', reportReason: 'x' }), 404, 'C0001');
    const waiting = await createListing(h, general);
    expectError(await api(h).report(fan, waiting, { reportType: 'ETC', reportReason: 'x' }), 404, 'C0001');
    const draft = (await api(h).create(general, { tmpYn: true })).body.data as number;
    expectError(await api(h).report(fan, draft, { reportType: 'ETC', reportReason: 'x' }), 404, 'C0001');
  });
});

describe('own lists', () => {
  test('agent list: own saved listings with state names and counts, search and isCompleted filters', async () => {
    const seller = await addMember(h.connection, '판매중개', { userType: 'AGENT' });
    const one = await createListing(h, seller, { title: '첫째 집' });
    const two = await createListing(h, seller, { title: '둘째 집' });
    const three = await createListing(h, seller, { title: '셋째 창고' });
    await api(h).complete(seller, one).expect(200);
    await api(h).create(seller, { tmpYn: true, title: '초안 집' }).expect(200);
    await createListing(h, owner, { title: '남의 집' });

    const res = await api(h).own(seller);
    expect(res.status).toBe(200);
    expect(houseIds(res)).toEqual([three, two, one]);
    expect(res.body.data.count).toEqual({ all: 3, applying: 0, ongoing: 2, completed: 1 });
    expect(res.body.data.content[2]).toEqual({
      houseId: one,
      rentalType: 'SALE',
      city: '강원특별자치도 평창군 대관령면',
      title: '첫째 집',
      imageUrl: 'https://img.example.com/a.jpg',
      dealState: 'COMPLETED',
      dealStateName: '판매완료',
    });
    expect(res.body.data).toMatchObject({ size: 10, totalElements: 3 });
    expect(houseIds(await api(h).own(seller, 'isCompleted=true'))).toEqual([one]);
    expect(houseIds(await api(h).own(seller, 'isCompleted=false'))).toEqual([three, two]);
    expect(houseIds(await api(h).own(seller, 'isCompleted='))).toEqual([three, two, one]);
    const searched = await api(h).own(seller, `search=${encodeURIComponent('집')}`);
    expect(houseIds(searched)).toEqual([two, one]);
    expect(searched.body.data.count).toEqual({ all: 3, applying: 0, ongoing: 2, completed: 1 });
    expectError(await api(h).own(seller, 'isCompleted=maybe'), 400, 'C0002');

    // The web client's "내 매물 관리": /houses/my with `keyword` is the same list; both names work on both paths.
    const my = (query: string) => api(h).raw.get(`/api/v1/houses/my?${query}`).set('Authorization', seller.token);
    const myPage = await my('page=0&keyword=');
    expect(myPage.status).toBe(200);
    expect(myPage.body.data).toEqual(res.body.data);
    expect(houseIds(await my(`page=0&keyword=${encodeURIComponent('창고')}`))).toEqual([three]);
    expect(houseIds(await my(`search=${encodeURIComponent('창고')}`))).toEqual([three]);
    expect(houseIds(await api(h).own(seller, `keyword=${encodeURIComponent('창고')}`))).toEqual([three]);
    expectError(await api(h).raw.get('/api/v1/houses/my'), 401, 'J0000');

    // Control characters in typed text are the sender's mistake (a NUL used to reach the store's regex: 500).
    for (const path of ['/api/v1/houses?search=%00', '/api/v1/houses?city=a%01b', '/api/v1/houses/agent?search=%00', '/api/v1/houses/my?keyword=x%7F']) {
      expectError(await api(h).raw.get(path).set('Authorization', seller.token), 400, 'C0002');
    }

    const waitingAuthor = await addMember(h.connection, '대기작성자');
    await createListing(h, waitingAuthor);
    const mine = await api(h).own(waitingAuthor);
    expect(mine.body.data.count).toEqual({ all: 1, applying: 1, ongoing: 0, completed: 0 });
    expect(mine.body.data.content[0]).toMatchObject({ dealState: 'APPLYING', dealStateName: '승인 대기' });
  });

  test('tmp-save list: own drafts, most recently updated first, deleted drafts gone', async () => {
    const writer = await addMember(h.connection, '작가');
    const first = (await api(h).create(writer, { tmpYn: true, title: '초안 1' })).body.data as number;
    const second = (await api(h).create(writer, { tmpYn: true, title: '초안 2' })).body.data as number;
    const third = (await api(h).create(writer, { tmpYn: true, title: '초안 3' })).body.data as number;
    h.clock.advance(1_000);
    await api(h).update(writer, first, { tmpYn: true, title: '초안 1 수정' }).expect(200);
    await api(h).remove(writer, second).expect(200);
    const res = await api(h).drafts(writer);
    expect(houseIds(res)).toEqual([first, third]);
    expect(res.body.data.content[0]).toMatchObject({ title: '초안 1 수정', nickName: '작가', imageUrl: null, isCompleted: false });
    expect(houseIds(await api(h).drafts(writer, 'size=1&page=1'))).toEqual([third]);
    expect((await api(h).drafts(writer, 'size=100')).body.data.size).toBe(50);
    expectError(await api(h).drafts(writer, 'size=0'), 400, 'C0002');
  });
});

describe('authorization from a second user and an agent', () => {
  test('nobody but the author edits or completes; only author or admin deletes', async () => {
    const houseId = await createListing(h, general, { title: '권한 시험' });
    await api(h).decide(admin, houseId, { approve: true }).expect(200);
    for (const intruder of [fan, agentUser]) {
      expectError(await api(h).update(intruder, houseId, validListing()), 403, 'C0003');
      expectError(await api(h).remove(intruder, houseId), 403, 'C0003');
      expectError(await api(h).complete(intruder, houseId), 403, 'C0003');
      expectError(await api(h).waiting(intruder), 403, 'J0006');
      expectError(await api(h).decide(intruder, houseId, { approve: false }), 403, 'J0006');
    }
    expect((await api(h).detail(houseId, fan)).body.data.title).toBe('권한 시험');
    await api(h).complete(general, houseId).expect(200);
    await api(h).remove(admin, houseId).expect(200);
    expectError(await api(h).detail(houseId, general), 404, 'C0001');
  });

  test('concurrent scraps of one listing by one user store a single scrap', async () => {
    const houseId = await createListing(h, owner);
    const results = await Promise.all(Array.from({ length: 8 }, () => api(h).scrap(fan, houseId)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 'H0002')).toHaveLength(7);
    expect(await h.models.scraps.countDocuments({ houseId, userId: fan.id })).toBe(1);
  });

  test('a report racing an approval never leaves a reported listing public', async () => {
    const houseId = await createListing(h, general, { title: '경합' });
    await Promise.all([api(h).decide(admin, houseId, { approve: true }), api(h).report(admin, houseId, { reportType: 'ETC', reportReason: '경합' })]);
    const stored = await h.models.houses.findById(houseId).lean();
    expect(stored).toMatchObject({ reported: true, listed: false, dealState: 'ONGOING' });
  });
});
