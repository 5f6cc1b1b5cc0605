/**
 * The community service as a real process behind the real gateway: boards, comments and loves over HTTP,
 * nicknames from accounts.user.* snapshots on NATS, and community.comment.created leaving through the
 * outbox. Needs the built processes (`npx tsc -b`).
 */
import { communityCommentCreated, type CommunityCommentCreatedV1 } from '@binzip/events';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(120_000);

const AUTHOR = 701;
const COMMENTER = 702;
const ADMIN = 709;

let e2e: E2eSystem;
let published: CommunityCommentCreatedV1[];

const api = <T = unknown>(method: string, urlPath: string, token?: string, body?: unknown, rawBody?: string) =>
  e2e.api<T>(method, urlPath, { token, body, rawBody });
const user = (userId: number) => bearer({ userId, userName: `user${userId}` });
const admin = (userId: number) => bearer({ userId, userName: `admin${userId}`, authority: 'ADMIN', userType: 'WEB' });

beforeAll(async () => {
  e2e = await startE2eSystem('communitye2e', {
    services: ['community'],
    env: { LOG_LEVEL: 'warn' },
    // The snapshots are on the stream before community starts: its projection must pick them up on start-up.
    beforeStart: async (stores) => {
      await stores.publishUser({ id: AUTHOR, nick_name: '빈집주인', version: 1 });
      await stores.publishUser({ id: COMMENTER, nick_name: '이웃', version: 1 });
    },
  });
  published = await e2e.collect(communityCommentCreated, 'e2e-comment-listener');
});

afterAll(async () => {
  await e2e?.stop();
});

test('a board, its comments and loves through the gateway, with nicknames from accounts events', async () => {
  const created = await api<number>('POST', '/api/v1/boards', user(AUTHOR), {
    title: '시골집 구경하세요',
    code: '<p>마당이 <b>넓은</b> 집</p>',
    category: 'DAILY',
    imageUrls: ['https://img/house.png'],
    prefixCategory: 'DEFAULT',
    fixed: false,
  });
  expect({ status: created.status, body: created.body }).toEqual({ status: 200, body: { code: 'SUCCESS', message: '성공', data: expect.any(Number) } });
  const boardId = created.body.data as number;

  // the projection catches up asynchronously from the ACCOUNTS stream
  await eventually(async () => (await api<{ nickName: string }>('GET', `/api/v1/boards/${boardId}`)).body.data?.nickName === '빈집주인', 20_000, 200);

  const commented = await api<number>('POST', '/api/v1/comments', user(COMMENTER), { boardId, content: '멋진 집이네요' });
  expect(commented.status).toBe(200);
  const commentId = commented.body.data as number;

  expect((await api('PUT', `/api/v1/loves/${boardId}`, user(COMMENTER))).body).toEqual({ code: 'SUCCESS', message: '성공', data: boardId });
  expect((await api('PUT', `/api/v1/loves/${boardId}`, user(COMMENTER))).body.code).toBe('P0000');
  expect((await api('GET', `/api/v1/loves/${boardId}`, user(COMMENTER))).body.data).toBe(true);

  const detail = await api<Record<string, unknown>>('GET', `/api/v1/boards/${boardId}`);
  expect(detail.body.data).toEqual({
    boardId,
    title: '시골집 구경하세요',
    code: '<p>마당이 <b>넓은</b> 집</p>',
    nickName: '빈집주인',
    createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/),
    imageUrls: ['https://img/house.png'],
    loveCount: 1,
    category: 'DAILY',
    prefixCategory: 'DEFAULT',
    commentCount: 1,
    comments: [{ commentId, nickName: '이웃', content: '멋진 집이네요', createdAt: expect.any(String) }],
  });

  const list = await api<{ content: Array<Record<string, unknown>>; totalElements: number }>(
    'GET',
    '/api/v1/boards?prefix=DEFAULT&search=%EB%A7%88%EB%8B%B9&order=POPULAR&page=0',
  );
  expect(list.body.data?.totalElements).toBe(1);
  expect(list.body.data?.content[0]).toMatchObject({
    boardId,
    oneLineContent: '마당이 넓은 집',
    imageUrl: 'https://img/house.png',
    commentCount: 1,
    fixed: false,
  });
  const preview = await api<Array<{ boardId: number }>>('GET', '/api/v1/boards/preview?prefix=COMMUNITY&limit=3');
  expect(preview.body.data?.map((b) => b.boardId)).toEqual([boardId]);
  expect((await api('GET', '/api/v1/boards/category?name=INTRO')).body.data).toEqual([
    { code: '트렌드', name: 'TREND' },
    { code: '후기', name: 'REVIEW' },
  ]);
  expect((await api<{ content: unknown[] }>('GET', '/api/v1/boards/my?page=0', user(AUTHOR))).body.data?.content).toEqual([
    expect.objectContaining({ boardId, commentCnt: 1 }),
  ]);
  expect((await api<{ content: unknown[] }>('GET', '/api/v1/boards/my/comment', user(COMMENTER))).body.data?.content).toEqual([
    { commentId, boardId, title: '시골집 구경하세요', commentContent: '멋진 집이네요' },
  ]);
  expect((await api<{ content: unknown[] }>('GET', '/api/v1/boards/my/love', user(COMMENTER))).body.data?.content).toEqual([
    expect.objectContaining({ boardId }),
  ]);

  // the comment left through the outbox with the event contract the notifications service consumes
  const event = await eventually(() => published.find((e) => e.commentId === commentId), 20_000, 100);
  expect(event).toMatchObject({
    boardId,
    boardTitle: '시골집 구경하세요',
    boardAuthorId: AUTHOR,
    commenterId: COMMENTER,
    commenterNickName: '이웃',
    content: '멋진 집이네요',
  });

  // a nickname change in accounts shows without touching the post
  await e2e.publishUser({ id: AUTHOR, nick_name: '새주인', version: 2 });
  await eventually(async () => (await api<{ nickName: string }>('GET', `/api/v1/boards/${boardId}`)).body.data?.nickName === '새주인', 20_000, 200);

  // ownership, bad input, bad tokens: envelopes, never 5xx
  expect((await api('PUT', `/api/v1/boards/${boardId}`, user(COMMENTER), { title: 'x', code: 'y', prefixCategory: 'DEFAULT' })).body.code).toBe('C0003');
  expect((await api('PUT', `/api/v1/comments/${commentId}`, user(AUTHOR), { boardId, content: 'x' })).body.code).toBe('C0003');
  const malformed = await api('POST', '/api/v1/boards', user(AUTHOR), undefined, '{"title":');
  expect({ status: malformed.status, code: malformed.body.code }).toEqual({ status: 400, code: 'C0002' });
  const unknownField = await api('POST', '/api/v1/comments', user(AUTHOR), { boardId, content: 'x', admin: true });
  expect({ status: unknownField.status, code: unknownField.body.code }).toEqual({ status: 400, code: 'C0002' });
  const badId = await api('GET', '/api/v1/boards/not-a-number');
  expect({ status: badId.status, code: badId.body.code }).toEqual({ status: 400, code: 'C0002' });
  expect((await api('POST', '/api/v1/boards', 'Bearer not.a.jwt', { title: 't' })).status).toBe(401);
  expect((await api('GET', '/api/v1/boards/my')).body.code).toBe('J0000');

  // delete by an admin: gone from reads and lists
  expect((await api('DELETE', `/api/v1/boards/${boardId}`, admin(ADMIN))).body).toEqual({ code: 'SUCCESS', message: '성공' });
  const gone = await api('GET', `/api/v1/boards/${boardId}`);
  expect({ status: gone.status, code: gone.body.code }).toEqual({ status: 404, code: 'C0001' });
  expect((await api<{ content: unknown[] }>('GET', '/api/v1/boards/my/love', user(COMMENTER))).body.data?.content).toEqual([]);
  expect((await api('POST', '/api/v1/comments', user(COMMENTER), { boardId, content: '늦은 댓글' })).body.code).toBe('C0001');
});
