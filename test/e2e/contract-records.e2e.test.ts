/**
 * The records part of the API document against the running system: every records operation driven through the
 * real gateway at least once, its success and its main error answers, each answer checked against the document
 * by the e2e harness (test/support/contract.ts). Users are the test key's bearer tokens; the records service
 * knows them (teams, nicknames, suspension) from accounts.user.* snapshots published on the test's bus.
 */
import { projectedUserModel } from '@binzip/shared';
import { bearer, eventually } from '../support';
import { apiContract } from '../support/contract';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(180_000);

const LEAD = 501; // WEB administrator, writes the records
const PEER = 502; // WEB administrator, the lead's reviewer
const SERVER = 503; // the only SERVER administrator: outside the WEB team
const MEMBER = 504;
const SUSPENDED = 505;

const tokens = {
  lead: bearer({ userId: LEAD, authority: 'ADMIN', userType: 'WEB' }),
  peer: bearer({ userId: PEER, authority: 'ADMIN', userType: 'WEB' }),
  server: bearer({ userId: SERVER, authority: 'ADMIN', userType: 'SERVER' }),
  member: bearer({ userId: MEMBER }),
  suspended: bearer({ userId: SUSPENDED }),
};

let e2e: E2eSystem;

const api = <T = unknown>(method: string, path: string, token?: string, body?: unknown) => e2e.api<T>(method, path, { token, body });
const ok = <T = unknown>(method: string, path: string, token?: string, body?: unknown) => e2e.ok<T>(method, path, { token, body });

async function expectCode(answer: Promise<{ status: number; body: { code: string } }>, status: number, code: string): Promise<void> {
  const res = await answer;
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
}

const newRecord = { title: '배포 장애 회고', content: '배포 중 장애가 있었습니다.', part: 'web', type: 'tech', category: 'disaster' };

beforeAll(async () => {
  e2e = await startE2eSystem('contractrecords', { services: ['records'], env: { LOG_LEVEL: 'warn' } });
  await e2e.publishUser({ id: LEAD, nick_name: '웹리드', authority: 'ADMIN', userType: 'WEB' });
  await e2e.publishUser({ id: PEER, nick_name: '웹동료', authority: 'ADMIN', userType: 'WEB' });
  await e2e.publishUser({ id: SERVER, nick_name: '서버관리자', authority: 'ADMIN', userType: 'SERVER' });
  await e2e.publishUser({ id: MEMBER, nick_name: '독자' });
  await e2e.publishUser({ id: SUSPENDED, nick_name: '정지회원', status: 'SUSPENDED' });
  const users = projectedUserModel(await e2e.db('records'));
  await eventually(async () => (await users.countDocuments({ _id: { $in: [LEAD, PEER, SERVER, MEMBER, SUSPENDED] } }).exec()) === 5, 30_000, 200);
});

afterAll(async () => {
  await e2e?.stop();
});

test('records: create, edit, delete, hot, list and detail', async () => {
  await expectCode(api('POST', '/api/v1/record', undefined, newRecord), 401, 'J0000');
  await expectCode(api('POST', '/api/v1/record', tokens.member, newRecord), 403, 'J0006');
  await expectCode(api('POST', '/api/v1/record', tokens.suspended, newRecord), 403, 'U0012');
  await expectCode(api('POST', '/api/v1/record', tokens.lead, { ...newRecord, type: 'odori' }), 400, 'C0002');
  const recordId = await ok<number>('POST', '/api/v1/record', tokens.lead, newRecord);

  await expectCode(api('PUT', `/api/v1/record/${recordId}`, tokens.peer, { title: '남의 글', content: '수정' }), 403, 'C0003');
  await expectCode(api('PUT', '/api/v1/record/999999', tokens.lead, { title: '없음', content: '수정' }), 404, 'C0001');
  await expectCode(api('PUT', `/api/v1/record/${recordId}`, tokens.lead, { title: '제목', content: '본문', type: 'odori' }), 400, 'C0002');
  expect(await ok('PUT', `/api/v1/record/${recordId}`, tokens.lead, { title: '고친 제목', content: '고친 본문' })).toBe(recordId);

  // In review: readable by id by anyone (not listed); views are not counted until it is approved.
  expect(await ok('GET', `/api/v1/record/${recordId}`)).toMatchObject({ record_id: recordId, hits: 0 });
  await expectCode(api('GET', '/api/v1/record/999999'), 404, 'C0001');
  await expectCode(api('GET', '/api/v1/record/abc'), 400, 'C0002');
  await expectCode(api('GET', `/api/v1/record/${recordId}`, 'Bearer not.a.jwt'), 401, 'J0004');
  const detail = await ok<{ title: string; hits: number; create_at: string }>('GET', `/api/v1/record/${recordId}`, tokens.peer);
  expect(detail).toMatchObject({ title: '고친 제목', hits: 0 });
  expect(detail.create_at).toMatch(/^\d{2}\.\d{2}\.\d{4}$/);

  await ok('POST', '/api/v1/record_review', tokens.peer, { record_id: recordId, content: '좋습니다', status: 'approve' });
  const listed = await ok<{ records: { content: Array<{ record_id: number }> } }>('GET', '/api/v1/record/web/tech?category=disaster');
  expect(listed.records.content.map((r) => r.record_id)).toEqual([recordId]);
  await expectCode(api('GET', '/api/v1/record/web/tech'), 400, 'C0002');
  await expectCode(api('GET', '/api/v1/record/mobile/all'), 400, 'C0002');
  const hot = await ok<{ records: Array<{ record_id: number }> }>('GET', '/api/v1/record/hot');
  expect(hot.records.map((r) => r.record_id)).toEqual([recordId]);
  expect(await ok('GET', `/api/v1/record/${recordId}?page=0&size=5`)).toMatchObject({ record_id: recordId, hits: 1 });

  await expectCode(api('DELETE', `/api/v1/record/${recordId}`, tokens.peer), 403, 'C0003');
  expect((await api('DELETE', `/api/v1/record/${recordId}`, tokens.lead)).body).toEqual({ code: 'SUCCESS', message: '성공' });
  await expectCode(api('DELETE', `/api/v1/record/${recordId}`, tokens.lead), 404, 'C0001');
});

test('reviews: the review view, reviewee and reviewer lists, and review writes', async () => {
  const recordId = await ok<number>('POST', '/api/v1/record', tokens.lead, { ...newRecord, title: '리뷰 받을 글' });

  const view = await ok<{ reviewers: unknown[] }>('GET', `/api/v1/record/review/${recordId}`, tokens.lead);
  expect(view.reviewers).toEqual([{ status: 'wait', nick_name: '웹동료' }]);
  await expectCode(api('GET', '/api/v1/record/review/999999', tokens.lead), 404, 'C0001');
  await expectCode(api('GET', `/api/v1/record/review/${recordId}`, tokens.member), 403, 'J0006');

  await expectCode(api('POST', '/api/v1/record_review', tokens.server, { record_id: recordId, content: '다른 팀', status: 'approve' }), 403, 'C0003');
  await expectCode(api('POST', '/api/v1/record_review', tokens.peer, { record_id: recordId, content: '내 글 아님', status: 'mine' }), 400, 'C0002');
  await expectCode(api('POST', '/api/v1/record_review', tokens.peer, { record_id: 999999, content: '없음', status: 'reject' }), 404, 'C0001');
  await expectCode(api('POST', '/api/v1/record_review', tokens.suspended, { record_id: recordId, content: '정지', status: 'reject' }), 403, 'U0012');
  const rejectId = await ok<number>('POST', '/api/v1/record_review', tokens.peer, { record_id: recordId, content: '보강해 주세요', status: 'reject' });
  const answerId = await ok<number>('POST', '/api/v1/record_review', tokens.lead, { record_id: recordId, content: '보강했습니다', status: 'mine' });

  const reviewee = await ok<{ records: { content: Array<{ record_id: number }> } }>('GET', '/api/v1/record/reviewee?status=reject', tokens.lead);
  expect(reviewee.records.content.map((r) => r.record_id)).toEqual([recordId]);
  await expectCode(api('GET', '/api/v1/record/reviewee?status=wait', tokens.member), 403, 'J0006');
  const reviewer = await ok<{ records: { content: Array<{ record_id: number }> } }>('GET', '/api/v1/record/reviewer?status=reject', tokens.peer);
  expect(reviewer.records.content.map((r) => r.record_id)).toEqual([recordId]);
  await expectCode(api('GET', '/api/v1/record/reviewer?status=mine', tokens.peer), 400, 'C0002');

  await expectCode(api('PUT', `/api/v1/record_review/${rejectId}`, tokens.lead, { content: '남의 리뷰', status: 'mine' }), 403, 'C0003');
  await expectCode(api('PUT', '/api/v1/record_review/999999', tokens.peer, { content: '없음', status: 'approve' }), 404, 'C0001');
  await expectCode(api('DELETE', '/api/v1/record_review/999999', tokens.lead), 404, 'C0001');
  await expectCode(api('DELETE', `/api/v1/record_review/${rejectId}`, tokens.lead), 403, 'C0003');
  expect((await api('DELETE', `/api/v1/record_review/${answerId}`, tokens.lead)).body).toEqual({ code: 'SUCCESS', message: '성공' });
  expect(await ok('PUT', `/api/v1/record_review/${rejectId}`, tokens.peer, { content: '좋습니다', status: 'approve' })).toBe(rejectId);

  // Approved: every review write is refused.
  await expectCode(api('POST', '/api/v1/record_review', tokens.lead, { record_id: recordId, content: '또', status: 'mine' }), 400, 'R0000');
  await expectCode(api('PUT', `/api/v1/record_review/${rejectId}`, tokens.peer, { content: '번복', status: 'reject' }), 400, 'R0000');
  await expectCode(api('DELETE', `/api/v1/record_review/${rejectId}`, tokens.peer), 400, 'R0000');
  const approved = await ok<{ reviews: Array<{ status: string }>; reviewers: unknown[] }>('GET', `/api/v1/record/review/${recordId}`, tokens.server);
  expect(approved.reviewers).toEqual([{ status: 'approve', nick_name: '웹동료' }]);
  expect(approved.reviews.map((r) => r.status)).toEqual(['approve']);
});

test('comments: write, reply, edit and delete', async () => {
  const recordId = await ok<number>('POST', '/api/v1/record', tokens.server, { ...newRecord, part: 'server', title: '댓글 받을 글' });

  await expectCode(api('POST', '/api/v1/record_comment', undefined, { record_id: recordId, content: '익명' }), 401, 'J0000');
  await expectCode(api('POST', '/api/v1/record_comment', tokens.member, { record_id: 999999, content: '없는 글' }), 404, 'C0001');
  await expectCode(api('POST', '/api/v1/record_comment', tokens.member, { record_id: recordId, content: '   ' }), 400, 'C0002');
  await expectCode(api('POST', '/api/v1/record_comment', tokens.suspended, { record_id: recordId, content: '정지 중' }), 403, 'U0012');
  const top = await ok<number>('POST', '/api/v1/record_comment', tokens.member, { record_id: recordId, parent_id: null, content: '잘 읽었습니다' });
  const reply = await ok<number>('POST', '/api/v1/record_comment', tokens.server, { record_id: recordId, parent_id: top, content: '감사합니다' });

  await expectCode(api('PUT', `/api/v1/record_comment/${top}`, tokens.server, { content: '남의 댓글' }), 403, 'C0003');
  await expectCode(api('PUT', '/api/v1/record_comment/999999', tokens.member, { content: '없음' }), 404, 'C0001');
  expect(await ok('PUT', `/api/v1/record_comment/${top}`, tokens.member, { content: '다시 읽었습니다' })).toBe(top);

  await expectCode(api('DELETE', `/api/v1/record_comment/${reply}`, tokens.member), 403, 'C0003');
  expect((await api('DELETE', `/api/v1/record_comment/${reply}`, tokens.server)).body).toEqual({ code: 'SUCCESS', message: '성공' });
  await expectCode(api('DELETE', `/api/v1/record_comment/${reply}`, tokens.server), 404, 'C0001');

  const detail = await ok<{ comments: { content: Array<{ comment_id: number; level: number; content: string }> } }>('GET', `/api/v1/record/${recordId}`);
  expect(detail.comments.content.map((c) => [c.comment_id, c.level, c.content])).toEqual([
    [top, 1, '다시 읽었습니다'],
    [reply, 2, '삭제된 댓글입니다.'],
  ]);
});

test('templates: save and read per category', async () => {
  expect(await ok('GET', '/api/v1/record_category/template/issue', tokens.lead)).toEqual({ template: '', category: 'issue' });
  await expectCode(api('POST', '/api/v1/record_category/template', tokens.member, { template: '## 원인', category: 'issue' }), 403, 'J0006');
  await expectCode(api('POST', '/api/v1/record_category/template', tokens.suspended, { template: '## 원인', category: 'issue' }), 403, 'U0012');
  await expectCode(api('POST', '/api/v1/record_category/template', tokens.lead, { template: '## 원인', category: 'ISSUE' }), 400, 'C0002');
  expect((await api('POST', '/api/v1/record_category/template', tokens.lead, { template: '## 원인', category: 'issue' })).body).toEqual({
    code: 'SUCCESS',
    message: '성공',
  });
  expect(await ok('GET', '/api/v1/record_category/template/issue', tokens.server)).toEqual({ template: '## 원인', category: 'issue' });
  await expectCode(api('GET', '/api/v1/record_category/template/blog', tokens.lead), 400, 'C0002');
  await expectCode(api('GET', '/api/v1/record_category/template/issue'), 401, 'J0000');
});

test('every records operation of the document was exercised', async () => {
  const contract = await apiContract();
  for (const tag of ['records', 'record-reviews', 'record-comments', 'record-templates']) {
    expect(contract.operationsTagged(tag).length).toBeGreaterThan(0);
    expect({ tag, uncovered: contract.uncovered(tag) }).toEqual({ tag, uncovered: [] });
  }
});
