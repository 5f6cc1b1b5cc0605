import { houseReportCreated } from '@binzip/events';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, updatePerson, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService } from './helpers';

let h: HousesHarness;
let owner: TestPerson;
let fan: TestPerson;
let other: TestPerson;
let admin: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('housesbackoffice', housesService);
  owner = await addMember(h.connection, '집주인', { userType: 'AGENT' });
  fan = await addMember(h.connection, '신고자하나');
  other = await addMember(h.connection, '신고자둘');
  admin = await addAdmin(h.connection, '운영자');
});
afterAll(() => h.close());

const adminGet = (path: string, who: TestPerson | null = admin) => {
  const test = api(h).raw.get(path);
  return who ? test.set('Authorization', who.token) : test;
};
const decide = (houseId: number | string, body: unknown, who: TestPerson = admin) =>
  api(h)
    .raw.put(`/api/v1/admin/reports/${houseId}`)
    .set('Authorization', who.token)
    .send(body as object);
/** In the public list (a reported listing leaves the list but stays readable by id). */
const listed = async (houseId: number) =>
  ((await api(h).list('size=50')).body.data.content as Array<{ houseId: number }>).some((item) => item.houseId === houseId);

describe('admin access and input', () => {
  it.each(['/api/v1/admin/reports', '/api/v1/admin/stats/houses'])('GET %s: 401 J0000, 403 J0006 for a member', async (path) => {
    expectError(await adminGet(path, null), 401, 'J0000');
    expectError(await adminGet(path, fan), 403, 'J0006');
  });

  it('PUT /api/v1/admin/reports/{id}: 401, 403, bad action, bad id', async () => {
    expectError(await api(h).raw.put('/api/v1/admin/reports/1').send({ action: 'DISMISS' }), 401, 'J0000');
    expectError(await decide(1, { action: 'DISMISS' }, fan), 403, 'J0006');
    for (const body of [{}, { action: 'delete' }, { action: 'REMOVE', extra: true }]) {
      const res = await decide(1, body);
      expectError(res, 400, 'C0002');
      expect(res.body.message).toMatch(/[가-힣]/);
    }
    expectError(await decide('x', { action: 'REMOVE' }), 400, 'C0002');
    expectError(await adminGet('/api/v1/admin/reports?status=ALL'), 400, 'C0002');
    expectError(await adminGet('/api/v1/admin/reports?size=x'), 400, 'C0002');
    expect((await adminGet('/api/v1/admin/reports?size=101')).body.data.size).toBe(100);
  });
});

describe('reports', () => {
  it('a report stores its houses.report.created event in the outbox', async () => {
    const houseId = await createListing(h, owner);
    await api(h).report(fan, houseId, { reportType: 'FAKE_SALE', reportReason: '없는 집' }).expect(200);
    const stored = await h.models.reports.findOne({ houseId }).lean().exec();
    expect(stored?.pendingEvents).toHaveLength(1);
    const event = houseReportCreated.schema.parse(stored?.pendingEvents?.[0]?.data);
    expect(stored?.pendingEvents?.[0]?.subject).toBe('houses.report.created');
    expect(event).toMatchObject({ houseId, authorId: owner.id, reporterId: fan.id, reportType: 'FAKE_SALE' });
  });

  it('lists open reports per listing, newest first; DISMISS makes it public again and a later report hides it again', async () => {
    const first = await createListing(h, owner, { title: '첫 집' });
    const second = await createListing(h, owner, { title: '둘째 집' });
    await api(h).report(fan, first, { reportType: 'FAKE_SALE', reportReason: '없는 집' }).expect(200);
    await api(h).report(other, first, { reportType: 'ETC', reportReason: '이상함' }).expect(200);
    await api(h).report(fan, second, { reportType: 'ADVERTISING_BOARD', reportReason: '광고' }).expect(200);
    const open = await adminGet('/api/v1/admin/reports?status=OPEN&size=100').expect(200);
    const items = open.body.data.content as Array<{ houseId: number }>;
    const ids = items.map((i) => i.houseId);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    expect(items.find((i) => i.houseId === first)).toEqual({
      houseId: first,
      title: '첫 집',
      authorId: owner.id,
      nickName: '집주인',
      reportCount: 2,
      lastReportedAt: expect.stringMatching(/\+09:00$/),
      status: 'OPEN',
      reports: [
        { reportType: 'ETC', reportTypeName: '기타', reportReason: '이상함', reporterNickName: '신고자둘', createdAt: expect.stringMatching(/\+09:00$/) },
        {
          reportType: 'FAKE_SALE',
          reportTypeName: '허위매물',
          reportReason: '없는 집',
          reporterNickName: '신고자하나',
          createdAt: expect.stringMatching(/\+09:00$/),
        },
      ],
    });
    expect(items.find((i) => i.houseId === second)).toMatchObject({ reports: [{ reportTypeName: '스팸게시글/광고' }] });
    expect(open.body.data).toMatchObject({ number: 0, size: 100, first: true });

    expect(await listed(first)).toBe(false);
    expect((await decide(first, { action: 'DISMISS' }).expect(200)).body.data).toBe(first);
    expect(await listed(first)).toBe(true);
    expectError(await decide(first, { action: 'DISMISS' }), 404, 'C0001');
    const closed = await adminGet('/api/v1/admin/reports?status=CLOSED').expect(200);
    expect(closed.body.data.content.find((i: { houseId: number }) => i.houseId === first)).toMatchObject({ status: 'CLOSED', reportCount: 2 });
    const openIds = (await adminGet('/api/v1/admin/reports').expect(200)).body.data.content.map((i: { houseId: number }) => i.houseId);
    expect(openIds).not.toContain(first);

    // The same member cannot report twice; another member can, and hides it again.
    expectError(await api(h).report(fan, first, { reportType: 'ETC', reportReason: '또' }), 400, 'H0003');
    const third = await addMember(h.connection, '신고자셋');
    await api(h).report(third, first, { reportType: 'ETC', reportReason: '다시 이상함' }).expect(200);
    expect(await listed(first)).toBe(false);
    const reopened = (await adminGet('/api/v1/admin/reports').expect(200)).body.data.content.find((i: { houseId: number }) => i.houseId === first);
    expect(reopened).toMatchObject({ status: 'OPEN', reportCount: 1, reports: [{ reporterNickName: '신고자셋' }] });

    expect((await decide(first, { action: 'REMOVE' }).expect(200)).body.data).toBe(first);
    // Gone for everyone but its author, who reads that it was taken down (issue 40).
    expectError(await api(h).detail(first, fan), 404, 'C0001');
    expectError(await api(h).detail(first), 404, 'C0001');
    expect((await api(h).detail(first, owner).expect(200)).body.data.moderation).toMatchObject({ state: 'REMOVED', reason: null });
    expectError(await decide(first, { action: 'DISMISS' }), 404, 'C0001');
    expect(await h.models.reports.countDocuments({ houseId: first, closedAt: null })).toBe(0);
  });

  it('C0001 for a listing without an open report or no listing', async () => {
    const houseId = await createListing(h, owner);
    expectError(await decide(houseId, { action: 'REMOVE' }), 404, 'C0001');
    expectError(await decide(987654, { action: 'REMOVE' }), 404, 'C0001');
    expect(await listed(houseId)).toBe(true);
  });

  it('shows a withdrawn author as 탈퇴한 사용자', async () => {
    const leaving = await addMember(h.connection, '떠날중개', { userType: 'AGENT' });
    const houseId = await createListing(h, leaving);
    await updatePerson(h.connection, leaving, { nick_name: `withdrawn:${leaving.id}`, status: 'WITHDRAWN', userName: `withdrawn:${leaving.id}` });
    expect((await api(h).detail(houseId)).body.data.nickName).toBe('탈퇴한 사용자');
  });
});

describe('GET /api/v1/admin/stats/houses', () => {
  it('counts saved listings by deal state, rental type and region word, and open reports', async () => {
    const before = (await adminGet('/api/v1/admin/stats/houses').expect(200)).body.data;
    const general = await addMember(h.connection, '일반회원');
    await createListing(h, general, { rentalType: 'JEONSE', city: '서울특별시 중구' });
    const reportedId = await createListing(h, owner, { rentalType: 'MONTHLYRENT', city: '제주특별자치도 제주시', monthlyPrice: 50 });
    await createListing(h, owner, { tmpYn: true });
    await api(h).report(fan, reportedId, { reportType: 'ETC', reportReason: '확인 필요' }).expect(200);
    const after = (await adminGet('/api/v1/admin/stats/houses').expect(200)).body.data;
    expect(after.total).toBe(before.total + 2);
    expect(after.byDealState.APPLYING).toBe(before.byDealState.APPLYING + 1);
    expect(after.byDealState.ONGOING).toBe(before.byDealState.ONGOING + 1);
    expect(after.byRentalType.JEONSE).toBe(before.byRentalType.JEONSE + 1);
    expect(after.byRentalType.MONTHLYRENT).toBe(before.byRentalType.MONTHLYRENT + 1);
    const region = (stats: { byRegion: Array<{ region: string; count: number }> }, name: string) => stats.byRegion.find((r) => r.region === name)?.count;
    expect(region(after, '수도권')).toBe((region(before, '수도권') ?? 0) + 1);
    expect(region(after, '제주')).toBe((region(before, '제주') ?? 0) + 1);
    expect(after.byRegion.map((r: { region: string }) => r.region)).toEqual(['수도권', '경상', '전라', '충청', '제주', '강원']);
    expect(after.reportedOpen).toBe(before.reportedOpen + 1);
  });
});
