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
const ADMIN = 604;
const token = (userId: number) => bearer({ userId, userName: `user${userId}` });

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('apidocument', { services: ['accounts', 'community', 'houses', 'records', 'notifications'], env: { LOG_LEVEL: 'warn' } });
  await e2e.publishUser({ id: AUTHOR, nick_name: '글쓴이' });
  await e2e.publishUser({ id: COMMENTER, nick_name: '댓글러' });
  await e2e.publishUser({ id: STRANGER, nick_name: '지나가는이' });
  await e2e.publishUser({ id: ADMIN, nick_name: '관리자', authority: 'ADMIN', userType: 'WEB' });
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
  expect(await docs.text()).toContain('id="signIn"');
  const swagger = await fetch(`${e2e.url}/docs/try/`);
  expect(swagger.redirected).toBe(false);
  expect(await swagger.text()).toContain('id="swagger-ui"');
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

  // Saved searches, the feed, preferences and the alert statistics (issue 38).
  const searchId = await e2e.ok<number>('POST', '/api/v1/saved-searches', {
    token: token(AUTHOR),
    body: { name: '강원 매매', province: '강원', rentalType: 'SALE' },
  });
  expect((await e2e.api('POST', '/api/v1/saved-searches', { token: token(AUTHOR), body: { name: 'x', province: '아틀란티스' } })).body.code).toBe('C0002');
  expect(await e2e.ok('GET', '/api/v1/saved-searches', { token: token(AUTHOR) })).toEqual([
    { id: searchId, name: '강원 매매', province: '강원', rentalType: 'SALE', alert: true },
  ]);
  expect(await e2e.ok('PUT', `/api/v1/saved-searches/${searchId}`, { token: token(AUTHOR), body: { name: '경상', province: '경상', alert: false } })).toBe(
    searchId,
  );
  expect((await e2e.api('PUT', `/api/v1/saved-searches/${searchId}`, { token: token(STRANGER), body: { name: 'x' } })).body.code).toBe('C0003');
  expect((await e2e.api('DELETE', `/api/v1/saved-searches/${searchId}`, { token: token(STRANGER) })).body.code).toBe('C0003');
  expect(await e2e.ok('DELETE', `/api/v1/saved-searches/${searchId}`, { token: token(AUTHOR) })).toBe(searchId);
  expect((await e2e.api('DELETE', `/api/v1/saved-searches/${searchId}`, { token: token(AUTHOR) })).body.code).toBe('C0001');
  expect((await e2e.api('PUT', `/api/v1/saved-searches/${searchId}`, { token: token(AUTHOR), body: { name: 'x' } })).body.code).toBe('C0001');
  const feed = await e2e.ok<{ notifications: { content: Array<{ notification_id: number; kind: string }> } }>(
    'GET',
    '/api/v1/notifications/feed?kind=COMMENT',
    { token: token(AUTHOR) },
  );
  expect(feed.notifications.content[0]).toMatchObject({ notification_id: notificationId, kind: 'COMMENT' });
  expect((await e2e.api('GET', '/api/v1/notifications/feed?kind=PARTY', { token: token(AUTHOR) })).body.code).toBe('C0002');
  expect(await e2e.ok('PUT', '/api/v1/notifications/preferences', { token: token(AUTHOR), body: { SCRAP_CHANGED: false } })).toMatchObject({
    SCRAP_CHANGED: false,
    COMMENT: true,
  });
  expect(await e2e.ok('GET', '/api/v1/notifications/preferences', { token: token(AUTHOR) })).toMatchObject({ SCRAP_CHANGED: false });
  expect(
    (await e2e.api('GET', '/api/v1/admin/stats/notifications?days=2', { token: bearer({ userId: ADMIN, authority: 'ADMIN', userType: 'WEB' }) })).status,
  ).toBe(200);
  expect((await e2e.api('GET', '/api/v1/admin/stats/notifications', { token: token(AUTHOR) })).body.code).toBe('J0006');
  expect(
    (await e2e.api('GET', '/api/v1/admin/stats/notifications?days=0', { token: bearer({ userId: ADMIN, authority: 'ADMIN', userType: 'WEB' }) })).body.code,
  ).toBe('C0002');

  const ticket = await e2e.ok<{ ticket: string }>('POST', '/api/v1/notifications/stream/ticket', { token: token(AUTHOR) });
  expect(ticket.ticket).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect((await e2e.api('POST', '/api/v1/notifications/stream/ticket')).body.code).toBe('J0000');

  // Web Push: this system has no VAPID keys, so it pushes nothing and says so (issue 38).
  expect(await e2e.ok('GET', '/api/v1/notifications/push/key', { token: token(AUTHOR) })).toEqual({ publicKey: null });
  const subscription = {
    endpoint: 'https://fcm.googleapis.com/fcm/send/device-1',
    expirationTime: null,
    keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
  };
  expect((await e2e.api('POST', '/api/v1/notifications/push/subscriptions', { token: token(AUTHOR), body: subscription })).body.code).toBe('C0001');
  expect((await e2e.api('POST', '/api/v1/notifications/push/subscriptions', { token: token(AUTHOR), body: { ...subscription, keys: {} } })).body.code).toBe(
    'C0002',
  );
  expect(
    (await e2e.api('DELETE', '/api/v1/notifications/push/subscriptions', { token: token(AUTHOR), body: { endpoint: subscription.endpoint } })).body.code,
  ).toBe('C0001');

  expect((await apiContract()).uncovered('notifications')).toEqual([]);
});

test('every request member and parameter carries its Korean label (the name C0002 messages use) as its title', () => {
  const document = buildApiDocument() as unknown as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: { schemas: Record<string, unknown> };
  };
  type Node = Record<string, unknown>;
  const unlabelled = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (node: unknown, where: string): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    const schema = node as Node;
    if (typeof schema.$ref === 'string') visit(document.components.schemas[schema.$ref.split('/').pop() ?? ''], where);
    for (const [name, member] of Object.entries((schema.properties ?? {}) as Record<string, Node>)) {
      if (typeof member.title !== 'string' || !/[가-힣]/.test(member.title)) unlabelled.add(`${where} ${name}`);
    }
    for (const value of Object.values(schema)) (Array.isArray(value) ? value : [value]).forEach((child) => visit(child, where));
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const parameter of (operation.parameters ?? []) as Array<{ name: string; schema: Node }>) {
        if (typeof parameter.schema.title !== 'string') unlabelled.add(`${method} ${path} ${parameter.name}`);
      }
      visit(operation.requestBody, `${method} ${path}`);
    }
  }
  expect([...unlabelled]).toEqual([]);
});
