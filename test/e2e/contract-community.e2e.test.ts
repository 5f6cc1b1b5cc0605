/**
 * The community part of the API document against the running system: every operation of the service is driven
 * through the real gateway, its success answer and its main error answers, and each answer is validated
 * against the document by the e2e harness. Needs the built processes (`npx tsc -b`).
 */
import { bearer, eventually } from '../support';
import { apiContract } from '../support/contract';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(180_000);

const AUTHOR = 801;
const COMMENTER = 802;
const SUSPENDED = 803;
const ADMIN = 809;

const author = bearer({ userId: AUTHOR });
const commenter = bearer({ userId: COMMENTER });
const suspended = bearer({ userId: SUSPENDED });
const admin = bearer({ userId: ADMIN, authority: 'ADMIN', userType: 'WEB' });

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('contractcommunity', {
    services: ['community'],
    env: { LOG_LEVEL: 'warn' },
    beforeStart: async (stores) => {
      await stores.publishUser({ id: AUTHOR, nick_name: '글쓴이' });
      await stores.publishUser({ id: COMMENTER, nick_name: '댓글러' });
      await stores.publishUser({ id: SUSPENDED, nick_name: '정지회원', status: 'SUSPENDED' });
      await stores.publishUser({ id: ADMIN, nick_name: '운영자', userType: 'WEB', authority: 'ADMIN' });
    },
  });
});

afterAll(async () => {
  await e2e?.stop();
});

const boardBody = (over: Record<string, unknown> = {}) => ({
  title: '계약 시험 글',
  code: '<p>본문</p>',
  category: null,
  imageUrls: ['https://img/1.png'],
  prefixCategory: 'DEFAULT',
  fixed: false,
  ...over,
});

/** The status and code of an answer (each answer was already checked against the document). */
async function answer(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const res = await e2e.api(method, path, options);
  return { status: res.status, code: res.body.code };
}

test('boards: write, read, lists, own lists, update and delete', async () => {
  // The projection catches up from the ACCOUNTS stream after start.
  await eventually(async () => (await e2e.api('POST', '/api/v1/boards', { token: suspended, body: boardBody() })).body.code === 'U0012', 20_000, 200);
  expect(await answer('POST', '/api/v1/boards', { body: boardBody() })).toEqual({ status: 401, code: 'J0000' });
  expect(await answer('POST', '/api/v1/boards', { token: author, body: boardBody({ category: 'TREND' }) })).toEqual({ status: 400, code: 'C0002' });
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', { token: author, body: boardBody({ category: 'DAILY' }) });
  await e2e.ok('POST', '/api/v1/boards', { token: author, body: boardBody({ prefixCategory: 'INTRO', category: 'REVIEW' }) });

  expect(await e2e.ok('GET', '/api/v1/boards/preview?prefix=COMMUNITY&limit=3')).toEqual([expect.objectContaining({ boardId })]);
  expect(await e2e.ok('GET', '/api/v1/boards/preview?prefix=INTRO&category=REVIEW')).toHaveLength(1);
  expect(await answer('GET', '/api/v1/boards/preview?prefix=COMMUNITY&category=REVIEW')).toEqual({ status: 400, code: 'C0002' });

  const page = await e2e.ok<{ totalElements: number }>('GET', '/api/v1/boards?prefix=DEFAULT&category=DAILY&search=%EB%B3%B8%EB%AC%B8&order=POPULAR');
  expect(page.totalElements).toBe(1);
  expect(await answer('GET', '/api/v1/boards?prefix=COMMUNITY')).toEqual({ status: 400, code: 'C0002' });
  expect(await answer('GET', '/api/v1/boards?prefix=DEFAULT', { token: 'Bearer nonsense' })).toEqual({ status: 401, code: 'J0004' });

  expect(await e2e.ok('GET', '/api/v1/boards/category?name=INTRO')).toEqual([
    { code: '트렌드', name: 'TREND' },
    { code: '후기', name: 'REVIEW' },
  ]);
  expect(await answer('GET', '/api/v1/boards/category')).toEqual({ status: 400, code: 'C0002' });

  expect(await e2e.ok('GET', `/api/v1/boards/${boardId}`)).toMatchObject({ boardId, nickName: '글쓴이', category: 'DAILY', comments: [] });
  expect(await answer('GET', '/api/v1/boards/987654')).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('GET', '/api/v1/boards/abc')).toEqual({ status: 400, code: 'C0002' });

  expect(await e2e.ok<{ totalElements: number }>('GET', '/api/v1/boards/my?page=0&size=10', { token: author })).toMatchObject({ totalElements: 2 });
  expect(await answer('GET', '/api/v1/boards/my')).toEqual({ status: 401, code: 'J0000' });
  expect(await answer('GET', '/api/v1/boards/my?page=x', { token: author })).toEqual({ status: 400, code: 'C0002' });

  expect(await e2e.ok('PUT', `/api/v1/boards/${boardId}`, { token: author, body: boardBody({ title: '고친 글', category: 'EMPTY' }) })).toBe(boardId);
  expect(await answer('PUT', `/api/v1/boards/${boardId}`, { token: commenter, body: boardBody() })).toEqual({ status: 403, code: 'C0003' });
  expect(await answer('PUT', '/api/v1/boards/987654', { token: author, body: boardBody() })).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('PUT', `/api/v1/boards/${boardId}`, { token: suspended, body: boardBody() })).toEqual({ status: 403, code: 'U0012' });

  // Comments and loves on it fill the own lists before it goes.
  await e2e.ok('POST', '/api/v1/comments', { token: commenter, body: { boardId, content: '댓글' } });
  await e2e.ok('PUT', `/api/v1/loves/${boardId}`, { token: commenter });
  expect(await e2e.ok('GET', '/api/v1/boards/my/comment?page=0&size=10', { token: commenter })).toMatchObject({
    content: [expect.objectContaining({ boardId })],
  });
  expect(await e2e.ok('GET', '/api/v1/boards/my/love?page=0&size=10', { token: commenter })).toMatchObject({ content: [expect.objectContaining({ boardId })] });
  expect(await answer('GET', '/api/v1/boards/my/comment')).toEqual({ status: 401, code: 'J0000' });
  expect(await answer('GET', '/api/v1/boards/my/love?size=0', { token: commenter })).toEqual({ status: 400, code: 'C0002' });

  expect(await answer('DELETE', `/api/v1/boards/${boardId}`, { token: commenter })).toEqual({ status: 403, code: 'C0003' });
  expect(await e2e.ok('DELETE', `/api/v1/boards/${boardId}`, { token: author })).toBeUndefined();
  expect(await answer('DELETE', `/api/v1/boards/${boardId}`, { token: author })).toEqual({ status: 404, code: 'C0001' });
});

test('comments: list, write, edit and delete', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', { token: author, body: boardBody() });
  const commentId = await e2e.ok<number>('POST', '/api/v1/comments', { token: commenter, body: { boardId, content: '첫 댓글' } });
  expect(await answer('POST', '/api/v1/comments', { token: commenter, body: { boardId: 987654, content: 'x' } })).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('POST', '/api/v1/comments', { token: commenter, body: { boardId, content: ' ' } })).toEqual({ status: 400, code: 'C0002' });
  expect(await answer('POST', '/api/v1/comments', { token: suspended, body: { boardId, content: 'x' } })).toEqual({ status: 403, code: 'U0012' });

  expect(await e2e.ok('GET', `/api/v1/comments/${boardId}`)).toEqual([expect.objectContaining({ commentId, nickName: '댓글러', content: '첫 댓글' })]);
  expect(await answer('GET', '/api/v1/comments/987654')).toEqual({ status: 404, code: 'C0001' });

  expect(await e2e.ok('PUT', `/api/v1/comments/${commentId}`, { token: commenter, body: { boardId, content: '고친 댓글' } })).toBe(commentId);
  expect(await answer('PUT', `/api/v1/comments/${commentId}`, { token: author, body: { boardId, content: 'x' } })).toEqual({ status: 403, code: 'C0003' });
  expect(await answer('PUT', '/api/v1/comments/987654', { token: commenter, body: { boardId, content: 'x' } })).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('PUT', `/api/v1/comments/${commentId}`, { token: commenter, body: { boardId, content: 'x', extra: 1 } })).toEqual({
    status: 400,
    code: 'C0002',
  });

  expect(await answer('DELETE', `/api/v1/comments/${commentId}`, { token: author })).toEqual({ status: 403, code: 'C0003' });
  expect(await e2e.ok('DELETE', `/api/v1/comments/${commentId}`, { token: admin })).toBeUndefined();
  expect(await answer('DELETE', `/api/v1/comments/${commentId}`, { token: commenter })).toEqual({ status: 404, code: 'C0001' });
});

test('loves: love, ask, love twice, unlove', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', { token: author, body: boardBody() });
  expect(await e2e.ok('PUT', `/api/v1/loves/${boardId}`, { token: commenter })).toBe(boardId);
  expect(await answer('PUT', `/api/v1/loves/${boardId}`, { token: commenter })).toEqual({ status: 400, code: 'P0000' });
  expect(await answer('PUT', `/api/v1/loves/${boardId}`, { token: suspended })).toEqual({ status: 403, code: 'U0012' });
  expect(await e2e.ok('GET', `/api/v1/loves/${boardId}`, { token: commenter })).toBe(true);
  expect(await answer('GET', '/api/v1/loves/987654', { token: commenter })).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('GET', `/api/v1/loves/${boardId}`)).toEqual({ status: 401, code: 'J0000' });
  expect(await e2e.ok('DELETE', `/api/v1/loves/${boardId}`, { token: commenter })).toBeUndefined();
  expect(await answer('DELETE', `/api/v1/loves/${boardId}`, { token: commenter })).toEqual({ status: 404, code: 'C0001' });
});

test('admin: pinning promotion posts, at most 10', async () => {
  const promotions: number[] = [];
  for (let i = 0; i < 11; i++)
    promotions.push(await e2e.ok<number>('POST', '/api/v1/boards', { token: author, body: boardBody({ prefixCategory: 'ADVERTISEMENT' }) }));
  const free = await e2e.ok<number>('POST', '/api/v1/boards', { token: author, body: boardBody() });
  const promotion = boardBody({ prefixCategory: 'ADVERTISEMENT', title: '운영자 홍보 글' });
  const adminsOwn = await e2e.ok<number>('POST', '/api/v1/boards', { token: admin, body: promotion });
  const pin = (boardId: number, token = admin, fixed = true) => answer('PUT', `/api/v1/admin/boards/${boardId}/fixed`, { token, body: { fixed } });

  expect(await e2e.ok('PUT', `/api/v1/admin/boards/${promotions[0]}/fixed`, { token: admin, body: { fixed: true } })).toBe(promotions[0]);
  expect(await pin(promotions[0], author)).toEqual({ status: 403, code: 'J0006' });
  expect(await answer('PUT', `/api/v1/admin/boards/${promotions[0]}/fixed`, { body: { fixed: true } })).toEqual({ status: 401, code: 'J0000' });
  expect(await pin(free)).toEqual({ status: 400, code: 'C0002' });
  expect(await pin(987654)).toEqual({ status: 404, code: 'C0001' });
  for (const boardId of promotions.slice(1, 10)) expect(await pin(boardId)).toEqual({ status: 200, code: 'SUCCESS' });
  expect(await pin(promotions[10])).toEqual({ status: 400, code: 'B0001' });
  // An administrator's promotion post written or edited pinned takes a slot too: none is left.
  expect(await answer('POST', '/api/v1/boards', { token: admin, body: { ...promotion, fixed: true } })).toEqual({ status: 400, code: 'B0001' });
  expect(await answer('PUT', `/api/v1/boards/${adminsOwn}`, { token: admin, body: { ...promotion, fixed: true } })).toEqual({ status: 400, code: 'B0001' });
  expect(await pin(promotions[0], admin, false)).toEqual({ status: 200, code: 'SUCCESS' });
});

test('reports on posts: report once, the queue, a decision with a note, the reporter reads the outcome (issue 40)', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', { token: author, body: boardBody({ title: '신고될 글' }) });
  const reportBody = { reportType: 'ADVERTISING_BOARD', reportReason: '광고 글입니다' };
  expect(await answer('PUT', `/api/v1/boards/report/${boardId}`, { token: commenter, body: reportBody })).toEqual({ status: 200, code: 'SUCCESS' });
  expect(await answer('PUT', `/api/v1/boards/report/${boardId}`, { token: commenter, body: reportBody })).toEqual({ status: 400, code: 'H0003' });
  expect(await answer('PUT', `/api/v1/boards/report/${boardId}`, { token: author, body: reportBody })).toEqual({ status: 403, code: 'H0001' });
  expect(await answer('PUT', '/api/v1/boards/report/987654', { token: commenter, body: reportBody })).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('PUT', `/api/v1/boards/report/${boardId}`, { token: commenter, body: { reportType: 'FAKE_SALE', reportReason: '이유' } })).toEqual({
    status: 400,
    code: 'C0002',
  });

  const queue = await e2e.ok<{ content: Array<{ boardId: number; reportCount: number }> }>(
    'GET',
    '/api/v1/admin/boards/reports?status=OPEN&sort=lastReportedAt,desc',
    {
      token: admin,
    },
  );
  expect(queue.content).toEqual([expect.objectContaining({ boardId, reportCount: 1 })]);
  expect(await answer('GET', '/api/v1/admin/boards/reports', { token: author })).toEqual({ status: 403, code: 'J0006' });
  expect(await answer('GET', '/api/v1/admin/boards/reports?sort=title', { token: admin })).toEqual({ status: 400, code: 'C0002' });

  expect(await e2e.ok('PUT', `/api/v1/admin/boards/reports/${boardId}`, { token: admin, body: { action: 'REMOVE', note: '광고라 삭제했습니다' } })).toBe(
    boardId,
  );
  expect(await answer('PUT', `/api/v1/admin/boards/reports/${boardId}`, { token: admin, body: { action: 'DISMISS' } })).toEqual({ status: 404, code: 'C0001' });
  expect(await answer('PUT', `/api/v1/admin/boards/reports/${boardId}`, { token: admin, body: { action: 'HIDE' } })).toEqual({ status: 400, code: 'C0002' });

  const mine = await e2e.ok<Array<{ boardId: number; state: string; note: string | null }>>('GET', '/api/v1/boards/report/mine', { token: commenter });
  expect(mine).toEqual([expect.objectContaining({ boardId, state: 'REMOVED', note: '광고라 삭제했습니다' })]);
  expect(await answer('GET', '/api/v1/boards/report/mine')).toEqual({ status: 401, code: 'J0000' });
});

test('every operation of the community document was exercised', async () => {
  const contract = await apiContract();
  for (const tag of ['boards', 'comments', 'loves', 'admin-boards']) expect({ tag, uncovered: contract.uncovered(tag) }).toEqual({ tag, uncovered: [] });
});
