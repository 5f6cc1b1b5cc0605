/**
 * The merged API document as the gateway serves it, against the running system: `/openapi.json` is the five
 * services' own documents merged (the same as `npm run openapi` writes), `/docs` serves Swagger UI from the
 * package, and the notifications operations are driven through the gateway so every answer is checked.
 */
import { buildApiDocument } from '../../scripts/lib/openapi';
import { bearer, eventually } from '../support';
import { apiContract } from '../support/contract';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

const AUTHOR = 601;
const COMMENTER = 602;
const STRANGER = 603;
const token = (userId: number) => bearer({ userId, userName: `user${userId}` });

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('apidocument', { services: ['accounts', 'community', 'houses', 'records', 'notifications'], env: { LOG_LEVEL: 'warn' } });
  await e2e.publishUser({ id: AUTHOR, nick_name: '글쓴이' });
  await e2e.publishUser({ id: COMMENTER, nick_name: '댓글러' });
  await e2e.publishUser({ id: STRANGER, nick_name: '지나가는이' });
});

afterAll(async () => {
  await e2e?.stop();
});

test('the gateway serves the five services documents merged, and Swagger UI reading it', async () => {
  const res = await fetch(`${e2e.url}/openapi.json`);
  expect(res.status).toBe(200);
  const served = (await res.json()) as ReturnType<typeof buildApiDocument>;
  expect(served).toEqual(JSON.parse(JSON.stringify(buildApiDocument())));
  for (const prefix of ['/api/v1/users', '/api/v1/boards', '/api/v1/houses', '/api/v1/record', '/api/v1/notifications', '/api/v1/admin/users']) {
    expect(Object.keys(served.paths ?? {}).some((path) => path.startsWith(prefix))).toBe(true);
  }
  const docs = await fetch(`${e2e.url}/docs/`);
  expect(docs.redirected).toBe(false);
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain('id="swagger-ui"');
  expect((await fetch(`${e2e.url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
});

test('notifications: every operation through the gateway matches the document', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: token(AUTHOR),
    body: { title: '빈집 수리 후기', code: '<p>지붕을 고쳤습니다.</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  await e2e.ok('POST', '/api/v1/comments', { token: token(COMMENTER), body: { boardId, content: '멋지네요' } });

  const inbox = await eventually(async () => {
    const page = await e2e.ok<{ nextId: number | null; notifications: { content: Array<{ notification_id: number }> } }>(
      'GET',
      '/api/v1/notifications?read=false',
      {
        token: token(AUTHOR),
      },
    );
    return page.notifications.content.length > 0 ? page : undefined;
  }, 30_000);
  const notificationId = inbox.notifications.content[0].notification_id;

  expect(await e2e.ok('PUT', `/api/v1/notifications/${notificationId}`, { token: token(AUTHOR) })).toBe(notificationId);
  expect((await e2e.api('PUT', `/api/v1/notifications/${notificationId}`, { token: token(STRANGER) })).body.code).toBe('C0003');
  expect((await e2e.api('PUT', '/api/v1/notifications/999999', { token: token(AUTHOR) })).body.code).toBe('C0001');
  expect((await e2e.api('PUT', '/api/v1/notifications/abc', { token: token(AUTHOR) })).body.code).toBe('C0002');
  expect((await e2e.api('GET', '/api/v1/notifications')).body.code).toBe('J0000');
  expect((await e2e.api('GET', `/api/v1/notifications?id=${inbox.nextId ?? ''}&read=true`, { token: token(AUTHOR) })).status).toBe(200);

  expect((await apiContract()).uncovered('notifications')).toEqual([]);
});
