import { adminActionRecorded, type OutboxEvent } from '@binzip/shared';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService } from './helpers';

/** Issue 40 in houses: audit entries stored with each decision, bulk decisions, report outcomes. */

let h: HousesHarness;
let member: TestPerson;
let agentOwner: TestPerson;
let reporter: TestPerson;
let admin: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('housesmoderation', housesService);
  member = await addMember(h.connection, '일반회원');
  agentOwner = await addMember(h.connection, '중개인', { userType: 'AGENT' });
  reporter = await addMember(h.connection, '신고회원');
  admin = await addAdmin(h.connection, '검토자');
});
afterAll(() => h.close());

/** The audit events a listing's document holds (the relay is not running in this harness). */
async function auditOf(houseId: number) {
  const doc = await h.models.houses.findById(houseId, { pendingEvents: 1 }).lean().exec();
  return (doc?.pendingEvents ?? []).filter((e: OutboxEvent) => e.subject === 'audit.houses').map((e: OutboxEvent) => adminActionRecorded.schema.parse(e.data));
}

const bulk = (body: unknown, who: TestPerson = admin) =>
  api(h)
    .raw.post('/api/v1/admin/houses/apply')
    .set('Authorization', who.token)
    .send(body as object);
const decideReport = (houseId: number, body: unknown) =>
  api(h)
    .raw.put(`/api/v1/admin/reports/${houseId}`)
    .set('Authorization', admin.token)
    .send(body as object);
const myReports = (who: TestPerson) => api(h).raw.get('/api/v1/houses/report/mine').set('Authorization', who.token);

describe('audit entries stored with the decision', () => {
  it('approve and reject each store one audit.houses event in the listing write: actor, target, reason, request id', async () => {
    const approved = await createListing(h, member, { title: '승인될 집' });
    const rejected = await createListing(h, member, { title: '거절될 집' });
    await api(h).decide(admin, approved, { approve: true }).set('x-request-id', 'req-approve-1').expect(200);
    await api(h).decide(admin, rejected, { approve: false, reason: '사진이 실제와 다릅니다' }).set('x-request-id', 'req-reject-1').expect(200);
    expect(await auditOf(approved)).toEqual([
      expect.objectContaining({
        service: 'houses',
        actorId: admin.id,
        actorUserName: `user${admin.id}`,
        action: 'APPROVE',
        targetType: 'HOUSE',
        targetId: approved,
        memberId: member.id,
        reason: null,
        requestId: 'req-approve-1',
      }),
    ]);
    expect(await auditOf(rejected)).toEqual([
      expect.objectContaining({ action: 'REJECT', targetId: rejected, reason: '사진이 실제와 다릅니다', requestId: 'req-reject-1' }),
    ]);
  });

  it('a refused decision stores nothing (H0004 on a decided listing)', async () => {
    const houseId = await createListing(h, member);
    await api(h).decide(admin, houseId, { approve: true }).expect(200);
    expectError(await api(h).decide(admin, houseId, { approve: false, reason: '늦은 거절' }), 400, 'H0004');
    expect((await auditOf(houseId)).map((e) => e.action)).toEqual(['APPROVE']);
  });

  it("an administrator deleting someone's listing is audited; an author deleting their own is not", async () => {
    const byAdmin = await createListing(h, agentOwner);
    const byAuthor = await createListing(h, agentOwner);
    await api(h).remove(admin, byAdmin).expect(200);
    await api(h).remove(agentOwner, byAuthor).expect(200);
    expect(await auditOf(byAdmin)).toEqual([expect.objectContaining({ action: 'DELETE', targetType: 'HOUSE', targetId: byAdmin, memberId: agentOwner.id })]);
    expect(await auditOf(byAuthor)).toEqual([]);
  });
});

describe('POST /api/v1/admin/houses/apply', () => {
  it('answers one outcome per id: a missing or decided id fails alone, the others succeed and are audited', async () => {
    const a = await createListing(h, member, { title: '일괄 하나' });
    const b = await createListing(h, member, { title: '일괄 둘' });
    const decided = await createListing(h, member, { title: '이미 처리' });
    await api(h).decide(admin, decided, { approve: true }).expect(200);
    const res = await bulk({ ids: [a, 999_999, decided, b], approve: false, reason: '주소가 확인되지 않습니다' }).expect(200);
    expect(res.body.data).toEqual([
      { id: a, code: 'SUCCESS', message: '성공' },
      { id: 999_999, code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' },
      { id: decided, code: 'H0004', message: '판매상태를 변경할 수 없는 데이터입니다.' },
      { id: b, code: 'SUCCESS', message: '성공' },
    ]);
    for (const id of [a, b]) {
      expect((await api(h).detail(id, member)).body.data.moderation).toEqual({ state: 'REJECTED', reason: '주소가 확인되지 않습니다', decidedAt: null });
      expect(await auditOf(id)).toEqual([expect.objectContaining({ action: 'REJECT', reason: '주소가 확인되지 않습니다' })]);
    }
    // The one already decided keeps only its own earlier entry.
    expect((await auditOf(decided)).map((e) => e.action)).toEqual(['APPROVE']);
  });

  it('approves in bulk: the listings are public', async () => {
    const ids = [await createListing(h, member), await createListing(h, member)];
    const res = await bulk({ ids, approve: true }).expect(200);
    expect(res.body.data.map((o: { code: string }) => o.code)).toEqual(['SUCCESS', 'SUCCESS']);
    for (const id of ids) expect((await api(h).detail(id)).status).toBe(200);
  });

  it('refuses a malformed request whole with C0002, deciding nothing', async () => {
    const houseId = await createListing(h, member);
    const bad: unknown[] = [
      {},
      { ids: [], approve: true },
      { ids: Array.from({ length: 101 }, (_, i) => i + 1), approve: true },
      { ids: [houseId], approve: false },
      { ids: [houseId], approve: false, reason: '   ' },
      { ids: [houseId], approve: false, reason: '가'.repeat(201) },
      { ids: [houseId, 'x'], approve: true },
      { ids: [houseId], approve: 'yes' },
      { ids: [houseId], approve: true, extra: 1 },
    ];
    for (const body of bad) {
      const res = await bulk(body);
      expectError(res, 400, 'C0002');
      expect(res.body.message).toMatch(/[가-힣]/);
    }
    expect(await auditOf(houseId)).toEqual([]);
    expect((await h.models.houses.findById(houseId).lean().exec())?.dealState).toBe('APPLYING');
  });

  it('is for administrators only', async () => {
    expectError(
      await api(h)
        .raw.post('/api/v1/admin/houses/apply')
        .send({ ids: [1], approve: true }),
      401,
      'J0000',
    );
    expectError(await bulk({ ids: [1], approve: true }, member), 403, 'J0006');
  });
});

describe('the approval queue: sort and filters', () => {
  it('sorts by updatedAt either way and filters by rental type and title', async () => {
    const first = await createListing(h, member, { title: '정렬 첫째 매물', rentalType: 'JEONSE' });
    h.clock.advance(1_000);
    const second = await createListing(h, member, { title: '정렬 둘째 매물', rentalType: 'JEONSE' });
    const ids = async (query: string) =>
      ((await api(h).waiting(admin, query).expect(200)).body.data.content as Array<{ houseId: number }>).map((i) => i.houseId);
    expect(await ids('search=정렬&size=50')).toEqual([first, second]);
    expect(await ids('search=정렬&sort=updatedAt,desc&size=50')).toEqual([second, first]);
    expect(await ids('search=둘째&size=50')).toEqual([second]);
    expect(await ids('search=정렬&rentalType=SALE')).toEqual([]);
    expect(await ids('search=정렬&rentalType=JEONSE&size=50')).toEqual([first, second]);
    expectError(await api(h).waiting(admin, 'sort=title,asc'), 400, 'C0002');
    expectError(await api(h).waiting(admin, 'rentalType=CASH'), 400, 'C0002');
  });
});

describe('report outcomes', () => {
  it('the reporter sees RECEIVED, then REMOVED with the note; the author reads why on their listing', async () => {
    const houseId = await createListing(h, agentOwner, { title: '신고될 집' });
    await api(h).report(reporter, houseId, { reportType: 'FAKE_SALE', reportReason: '없는 집입니다' }).expect(200);
    expect((await myReports(reporter).expect(200)).body.data).toEqual([
      expect.objectContaining({
        houseId,
        title: '신고될 집',
        reportType: 'FAKE_SALE',
        reportReason: '없는 집입니다',
        state: 'RECEIVED',
        note: null,
        decidedAt: null,
      }),
    ]);
    await decideReport(houseId, { action: 'REMOVE', note: '허위 매물로 확인되어 삭제했습니다' }).expect(200);
    const [mine] = (await myReports(reporter).expect(200)).body.data;
    expect(mine).toMatchObject({ houseId, state: 'REMOVED', note: '허위 매물로 확인되어 삭제했습니다' });
    expect(mine.decidedAt).toEqual(expect.any(String));
    // The author still reads the taken-down listing, with why; anyone else gets C0001.
    const own = await api(h).detail(houseId, agentOwner).expect(200);
    expect(own.body.data.moderation).toEqual({ state: 'REMOVED', reason: '허위 매물로 확인되어 삭제했습니다', decidedAt: expect.any(String) });
    expectError(await api(h).detail(houseId, reporter), 404, 'C0001');
    expectError(await api(h).detail(houseId), 404, 'C0001');
    expect(await auditOf(houseId)).toEqual([
      expect.objectContaining({
        action: 'REMOVE',
        targetType: 'REPORT',
        targetId: houseId,
        memberId: agentOwner.id,
        reason: '허위 매물로 확인되어 삭제했습니다',
      }),
    ]);
  });

  it('DISMISS without a note: DISMISSED, note null; nobody else sees the moderation field', async () => {
    const houseId = await createListing(h, agentOwner);
    await api(h).report(reporter, houseId, { reportType: 'ETC', reportReason: '이상해요' }).expect(200);
    await decideReport(houseId, { action: 'DISMISS' }).expect(200);
    const mine = (await myReports(reporter).expect(200)).body.data.find((r: { houseId: number }) => r.houseId === houseId);
    expect(mine).toMatchObject({ state: 'DISMISSED', note: null });
    expect((await api(h).detail(houseId, agentOwner)).body.data.moderation).toMatchObject({ state: 'REPORT_DISMISSED', reason: null });
    expect((await api(h).detail(houseId, reporter)).body.data).not.toHaveProperty('moderation');
    expect(await auditOf(houseId)).toEqual([expect.objectContaining({ action: 'DISMISS', reason: null })]);
  });

  it('a note over 500 characters is C0002; my reports needs a signed-in member', async () => {
    expectError(await decideReport(1, { action: 'DISMISS', note: '가'.repeat(501) }), 400, 'C0002');
    expectError(await api(h).raw.get('/api/v1/houses/report/mine'), 401, 'J0000');
    expect((await myReports(member).expect(200)).body.data).toEqual([]);
  });
});
