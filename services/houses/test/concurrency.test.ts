import { isListed } from '../src/models';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type TestPerson } from '../../../test/support/service';
import { api, createListing, type HousesHarness, housesService, validListing } from './helpers';

/** Many writes to one listing at once: every request gets an answer from the contract, never a 500. */
let h: HousesHarness;
let agentUser: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('housesrace', housesService);
  agentUser = await addMember(h.connection, '동시중개', { userType: 'AGENT' });
});
afterAll(() => h.close());

test('many users reporting one listing at once: every report is stored and answered 200', async () => {
  const houseId = await createListing(h, agentUser, { title: '동시 신고' });
  const reporters: TestPerson[] = [];
  for (let i = 0; i < 20; i++) reporters.push(await addMember(h.connection, `신고자${i}`));
  const results = await Promise.all(reporters.map((r) => api(h).report(r, houseId, { reportType: 'ETC', reportReason: '동시' })));
  expect(results.map((r) => r.status)).toEqual(reporters.map(() => 200));
  expect(await h.models.reports.countDocuments({ houseId })).toBe(20);
  expect(await h.models.houses.findById(houseId).lean()).toMatchObject({ reported: true, listed: false });
});

test('parallel edits of one listing by its author all succeed; one of them is stored whole', async () => {
  const houseId = await createListing(h, agentUser, { title: '동시 수정' });
  const titles = Array.from({ length: 12 }, (_, i) => `동시 수정 ${i}`);
  const results = await Promise.all(titles.map((title) => api(h).update(agentUser, houseId, validListing({ title, detail: `${title} 상세` }))));
  expect(results.map((r) => r.status)).toEqual(titles.map(() => 200));
  const stored = await h.models.houses.findById(houseId).lean();
  expect(titles).toContain(stored!.title);
  expect(stored!.detail).toBe(`${stored!.title} 상세`);
  expect(stored).toMatchObject({ dealState: 'ONGOING', listed: true, tmpYn: false });
});

test('a listing whose state keeps changing under the request: 429 C0004, nothing written', async () => {
  const houseId = await createListing(h, agentUser, { title: '끝없는 경합' });
  const before = await h.models.houses.findById(houseId).lean();
  // Every conditional write loses, as if another writer changed the listing's state each time.
  const spy = jest
    .spyOn(h.models.houses, 'updateOne')
    .mockImplementation(() => ({ exec: async () => ({ acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null }) }) as never);
  try {
    expectError(await api(h).update(agentUser, houseId, validListing({ title: '바뀌면 안 됨' })), 429, 'C0004');
    expectError(await api(h).complete(agentUser, houseId), 429, 'C0004');
  } finally {
    spy.mockRestore();
  }
  expect(await h.models.houses.findById(houseId).lean()).toEqual(before);
});

test('a repeated report hides a listing whose hiding was interrupted after the first report was stored', async () => {
  const houseId = await createListing(h, agentUser, { title: '중단된 신고' });
  const reporter = await addMember(h.connection, '재신고자');
  // The state a crash between storing the report and hiding the listing would leave behind.
  await h.models.reports.create({ houseId, userId: reporter.id, reportType: 'ETC', reportReason: '첫 신고', createdAt: new Date() });
  expect((await api(h).list('search=중단된 신고')).body.data.totalElements).toBe(1);

  expectError(await api(h).report(reporter, houseId, { reportType: 'ETC', reportReason: '다시' }), 400, 'H0003');
  expect((await api(h).list('search=중단된 신고')).body.data.totalElements).toBe(0);
  expect(await h.models.reports.countDocuments({ houseId })).toBe(1);
});

test('a repeated report of an already hidden listing changes nothing', async () => {
  const houseId = await createListing(h, agentUser, { title: '이미 숨김' });
  const reporter = await addMember(h.connection, '두번신고');
  await api(h).report(reporter, houseId, { reportType: 'ETC', reportReason: '처음' }).expect(200);
  const before = await h.models.houses.findById(houseId).lean();
  expectError(await api(h).report(reporter, houseId, { reportType: 'ETC', reportReason: '두번째' }), 400, 'H0003');
  expect(await h.models.houses.findById(houseId).lean()).toEqual(before);
});

test('an edit racing an approval and a report: `listed` always agrees with the state the listing ends in', async () => {
  const general = await addMember(h.connection, '경합작성자');
  const admin = await addAdmin(h.connection, '경합관리자');
  const reporter = await addMember(h.connection, '경합신고자');
  for (let round = 0; round < 5; round++) {
    const houseId = await createListing(h, general, { title: `경합 ${round}` });
    await api(h).decide(admin, houseId, { approve: true }).expect(200);
    await api(h)
      .update(general, houseId, validListing({ title: `경합 ${round} 수정` }))
      .expect(200);
    const results = await Promise.all([
      api(h).decide(admin, houseId, { approve: true }),
      api(h).report(reporter, houseId, { reportType: 'ETC', reportReason: '경합' }),
      api(h).update(general, houseId, validListing({ title: `경합 ${round} 재수정` })),
    ]);
    for (const r of results) expect(r.status).toBeLessThan(500);
    const stored = (await h.models.houses.findById(houseId).lean())!;
    if (results[1].status === 200) expect(stored.reported).toBe(true);
    expect(stored.listed).toBe(isListed(stored));
  }
});
