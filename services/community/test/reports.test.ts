import { adminActionRecorded, type OutboxEvent } from '@binzip/shared';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { postBoard } from './helpers';

/** Issue 40 in community: members report posts, administrators decide them in a queue, reporters read the outcome. */

let h: ServiceHarness<CommunityModels>;
let admin: TestPerson;
let author: TestPerson;
let alice: TestPerson;
let bob: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('communityreports', { models: communityModels, initModels, buildApp });
  admin = await addAdmin(h.connection, '신고검토자');
  author = await addMember(h.connection, '글쓴이');
  alice = await addMember(h.connection, '앨리스');
  bob = await addMember(h.connection, '밥');
});
afterAll(() => h.close());

const report = (by: TestPerson, boardId: number, body: Record<string, unknown> = { reportType: 'ABUSE', reportReason: '욕설이 있습니다' }) =>
  request(h.app).put(`/api/v1/boards/report/${boardId}`).set('Authorization', by.token).send(body);
const queue = (query = '') =>
  request(h.app)
    .get(`/api/v1/admin/boards/reports${query ? `?${query}` : ''}`)
    .set('Authorization', admin.token);
const decide = (boardId: number, body: Record<string, unknown>, who = admin) =>
  request(h.app).put(`/api/v1/admin/boards/reports/${boardId}`).set('Authorization', who.token).send(body);
const mine = (who: TestPerson) => request(h.app).get('/api/v1/boards/report/mine').set('Authorization', who.token);
const boardAudit = async (id: number) =>
  ((await h.models.boards.findById(id, { pendingEvents: 1 }).lean().exec())?.pendingEvents ?? [])
    .filter((e: OutboxEvent) => e.subject === 'audit.community')
    .map((e: OutboxEvent) => adminActionRecorded.schema.parse(e.data));

it('a member reports a post once; the author cannot; the post stays public until decided', async () => {
  const id = await postBoard(h.app, author, { title: '신고될 글' });
  expect((await report(alice, id)).body).toEqual({ code: 'SUCCESS', message: '성공' });
  expectError(await report(alice, id), 400, 'H0003', '이미 신고처리된 게시글입니다.');
  expectError(await report(author, id), 403, 'H0001');
  expectError(await report(alice, 999_999), 404, 'C0001');
  expectError(await request(h.app).put(`/api/v1/boards/report/${id}`).send({ reportType: 'ETC', reportReason: '이유' }), 401, 'J0000');
  expect((await request(h.app).get(`/api/v1/boards/${id}`)).status).toBe(200);
  expect(await h.models.boardReports.countDocuments({ boardId: id })).toBe(1);
});

it('bad input is C0002 naming the field in Korean, and stores nothing', async () => {
  const id = await postBoard(h.app, author);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ reportReason: '이유' }, '신고 유형'],
    [{ reportType: 'FAKE_SALE', reportReason: '이유' }, '신고 유형'],
    [{ reportType: 'ETC' }, '신고 사유'],
    [{ reportType: 'ETC', reportReason: '   ' }, '신고 사유'],
    [{ reportType: 'ETC', reportReason: '가'.repeat(101) }, '신고 사유'],
  ];
  for (const [body, label] of cases) {
    const res = await report(bob, id, body);
    expectError(res, 400, 'C0002');
    expect(res.body.message).toContain(label);
  }
  expectError(await report(bob, id, { reportType: 'ETC', reportReason: '이유', extra: 1 }), 400, 'C0002');
  const params = await request(h.app).put('/api/v1/boards/report/abc').set('Authorization', bob.token).send({ reportType: 'ETC', reportReason: '이유' });
  expectError(params, 400, 'C0002');
  expect(params.body.message).toContain('게시글 번호');
  for (const [query, label] of [
    ['status=DONE', '처리 상태'],
    ['sort=title,asc', '정렬'],
  ]) {
    const res = await queue(query);
    expectError(res, 400, 'C0002');
    expect(res.body.message).toContain(label);
  }
  for (const [body, label] of [
    [{ action: 'DELETE' }, '처리'],
    [{ action: 'DISMISS', note: '가'.repeat(501) }, '처리 메모'],
  ] as const) {
    const res = await decide(id, body);
    expectError(res, 400, 'C0002');
    expect(res.body.message).toContain(label);
  }
  expect(await h.models.boardReports.countDocuments({ boardId: id })).toBe(0);
});

it('the queue: one item per post with its reports, sorted by the latest report, administrators only', async () => {
  const first = await postBoard(h.app, author, { title: '먼저 신고된 글' });
  const second = await postBoard(h.app, author, { title: '나중에 신고된 글' });
  await report(alice, first, { reportType: 'ADVERTISING_BOARD', reportReason: '광고' }).expect(200);
  h.clock.advance(60_000);
  await report(bob, first, { reportType: 'ETC', reportReason: '기타 이유' }).expect(200);
  h.clock.advance(60_000);
  await report(alice, second).expect(200);

  const newest = (await queue('size=100').expect(200)).body.data;
  const ids = newest.content.map((i: { boardId: number }) => i.boardId);
  expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
  expect(newest.content.find((i: { boardId: number }) => i.boardId === first)).toEqual(
    expect.objectContaining({
      title: '먼저 신고된 글',
      authorId: author.id,
      nickName: '글쓴이',
      deleted: false,
      reportCount: 2,
      status: 'OPEN',
      note: null,
      reports: [
        expect.objectContaining({ reportType: 'ETC', reportTypeName: '기타', reportReason: '기타 이유', reporterNickName: '밥' }),
        expect.objectContaining({ reportType: 'ADVERTISING_BOARD', reportTypeName: '스팸게시글/광고', reporterNickName: '앨리스' }),
      ],
    }),
  );
  const oldest = (await queue('size=100&sort=lastReportedAt,asc').expect(200)).body.data.content.map((i: { boardId: number }) => i.boardId);
  expect(oldest.indexOf(first)).toBeLessThan(oldest.indexOf(second));
  expectError(await request(h.app).get('/api/v1/admin/boards/reports').set('Authorization', alice.token), 403, 'J0006');
});

it('DISMISS keeps the post, REMOVE deletes it; each closes the reports with the note, is audited once, and the reporters read the outcome', async () => {
  const kept = await postBoard(h.app, author, { title: '기각될 글' });
  const removed = await postBoard(h.app, author, { title: '삭제될 글' });
  await report(alice, kept).expect(200);
  await report(alice, removed, { reportType: 'ADVERTISING_BOARD', reportReason: '도박 광고' }).expect(200);
  await report(bob, removed, { reportType: 'ADVERTISING_BOARD', reportReason: '광고' }).expect(200);
  expect((await mine(alice).expect(200)).body.data.filter((r: { boardId: number }) => [kept, removed].includes(r.boardId))).toEqual([
    expect.objectContaining({ boardId: removed, title: '삭제될 글', state: 'RECEIVED', note: null, decidedAt: null }),
    expect.objectContaining({ boardId: kept, title: '기각될 글', state: 'RECEIVED', note: null }),
  ]);

  expect((await decide(kept, { action: 'DISMISS', note: '  ' }).set('x-request-id', 'req-dismiss-1')).body).toEqual({
    code: 'SUCCESS',
    message: '성공',
    data: kept,
  });
  expect((await decide(removed, { action: 'REMOVE', note: '광고 글이라 삭제했습니다' })).body.data).toBe(removed);
  // Decided already: no open report.
  expectError(await decide(kept, { action: 'REMOVE' }), 404, 'C0001');
  expectError(await decide(999_999, { action: 'DISMISS' }), 404, 'C0001');

  expect((await request(h.app).get(`/api/v1/boards/${kept}`)).status).toBe(200);
  expectError(await request(h.app).get(`/api/v1/boards/${removed}`), 404, 'C0001');
  expect(await boardAudit(kept)).toEqual([
    expect.objectContaining({
      action: 'DISMISS',
      targetType: 'BOARD',
      targetId: kept,
      memberId: author.id,
      actorId: admin.id,
      reason: null,
      requestId: 'req-dismiss-1',
    }),
  ]);
  expect(await boardAudit(removed)).toEqual([
    expect.objectContaining({ action: 'REMOVE', targetType: 'BOARD', targetId: removed, memberId: author.id, reason: '광고 글이라 삭제했습니다' }),
  ]);

  const aliceReports = (await mine(alice).expect(200)).body.data;
  expect(aliceReports.find((r: { boardId: number }) => r.boardId === removed)).toEqual(
    expect.objectContaining({ state: 'REMOVED', note: '광고 글이라 삭제했습니다', decidedAt: expect.any(String) }),
  );
  expect(aliceReports.find((r: { boardId: number }) => r.boardId === kept)).toEqual(expect.objectContaining({ state: 'DISMISSED', note: null }));
  expect((await mine(bob).expect(200)).body.data.find((r: { boardId: number }) => r.boardId === removed)).toEqual(
    expect.objectContaining({ state: 'REMOVED' }),
  );

  const closed = (await queue('status=CLOSED&size=100').expect(200)).body.data.content;
  expect(closed.find((i: { boardId: number }) => i.boardId === removed)).toEqual(
    expect.objectContaining({ status: 'CLOSED', deleted: true, reportCount: 2, note: '광고 글이라 삭제했습니다' }),
  );
  const open = (await queue('size=100').expect(200)).body.data.content.map((i: { boardId: number }) => i.boardId);
  expect(open).not.toContain(kept);
  expect(open).not.toContain(removed);

  // A dismissed post reported again by another member is open again, with only the new report.
  await report(bob, kept).expect(200);
  expect((await queue('size=100').expect(200)).body.data.content.find((i: { boardId: number }) => i.boardId === kept)).toEqual(
    expect.objectContaining({ reportCount: 1, reports: [expect.objectContaining({ reporterNickName: '밥' })] }),
  );
});

it('a post its author deleted while reported stays in the queue; a decision closes its reports and deletes nothing more', async () => {
  const id = await postBoard(h.app, author);
  await report(alice, id).expect(200);
  await request(h.app).delete(`/api/v1/boards/${id}`).set('Authorization', author.token).expect(200);
  expect((await queue('size=100').expect(200)).body.data.content.find((i: { boardId: number }) => i.boardId === id)).toEqual(
    expect.objectContaining({ deleted: true }),
  );
  await decide(id, { action: 'REMOVE' }).expect(200);
  expect((await mine(alice).expect(200)).body.data.find((r: { boardId: number }) => r.boardId === id)).toEqual(expect.objectContaining({ state: 'REMOVED' }));
  expect(await boardAudit(id)).toEqual([expect.objectContaining({ action: 'REMOVE' })]);
});
