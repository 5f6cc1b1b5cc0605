/**
 * The original back office (ODOICHON/back-office, the team-record area) against this backend, through the real
 * gateway and services (run `npx tsc -b` first): its home and part pages ask `?category=null&page=0`, it opens
 * the author's new record by id right after submitting it without a token, and reviewers approve it. Issue 18.
 * Its sign-in sends the login id under the field's former name, `{"email": ..., "password": ...}`. Issue 33.
 */
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

const WRITER = {
  userName: 'bowebone',
  password: 'Wr1terPass!',
  nick_name: '웹작성자',
  phone_num: '01066660001',
  email: 'bowebone@example.com',
  userType: 'WEB',
};
const REVIEWER = {
  userName: 'bowebtwo',
  password: 'Rev1ewPass!',
  nick_name: '웹검토자',
  phone_num: '01066660002',
  email: 'bowebtwo@example.com',
  userType: 'WEB',
};

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('legacybackoffice', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
    env: { LOG_LEVEL: 'warn', BCRYPT_COST: '4', ADMIN_BOOTSTRAP: JSON.stringify([WRITER, REVIEWER]) },
  });
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

test('the back office signs in with its own body ({email, password}): a token that works, Deprecation and Sunset on the answer', async () => {
  // src/views/LogInView.vue: the 로그인 ID input is bound to `email`.
  const res = await e2e.api<{ access_token: string }>('POST', '/api/v1/users/sign-in', { body: { email: WRITER.userName, password: WRITER.password } });
  expect(res.status).toBe(200);
  expect(res.body.code).toBe('SUCCESS');
  expect(res.headers.get('deprecation')).toMatch(/^@\d{10}$/);
  expect(new Date(res.headers.get('sunset') ?? '').getTime()).toBeGreaterThan(Date.now());
  expect(res.headers.get('set-cookie')).toMatch(/^RefreshToken=/);
  // Then it reads the signed-in user (store/modules/Auth.ts getUserInfo).
  const me = await e2e.ok<Loose>('GET', '/api/v1/users', { token: res.body.data!.access_token });
  expect(me).toMatchObject({ userType: 'WEB' });
  // Both names at once is refused, naming them.
  const both = await e2e.api('POST', '/api/v1/users/sign-in', { body: { email: WRITER.userName, userName: WRITER.userName, password: WRITER.password } });
  expect({ status: both.status, body: both.body }).toEqual({
    status: 400,
    body: { code: 'C0002', message: '아이디와 이메일(아이디의 예전 이름)은 함께 보낼 수 없습니다.' },
  });
});
const ids = (page: Loose): number[] => page.records.content.map((r: Loose) => r.record_id);

test('home and part pages with category=null, a new record read by id without a token, review, and the lists after approval', async () => {
  const writer = await e2e.signIn(WRITER.userName, WRITER.password);
  const reviewer = await e2e.signIn(REVIEWER.userName, REVIEWER.password);
  // The home and part pages before anything is approved: empty, not 400.
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/all/all?category=null&page=0'))).toEqual([]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/web/all?category=null&page=0'))).toEqual([]);

  const recordId = await e2e.ok<number>('POST', '/api/v1/record', {
    token: writer,
    body: { title: '배포 회고', content: '<p>배포 중 장애가 있었습니다.</p>', part: 'web', category: 'disaster', type: 'tech' },
  });
  // Right after submitting, the back office opens it by id, without a token.
  expect(await e2e.ok<Loose>('GET', `/api/v1/record/${recordId}?page=0`)).toMatchObject({ record_id: recordId, title: '배포 회고', part: 'web' });
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/all/all?category=null&page=0'))).toEqual([]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/reviewee?status=wait&page=0', { token: writer }))).toEqual([recordId]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/reviewer?status=wait&page=0', { token: reviewer }))).toEqual([recordId]);

  await e2e.ok('POST', '/api/v1/record_review', { token: reviewer, body: { record_id: recordId, content: '좋습니다', status: 'approve' } });
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/all/all?category=null&page=0'))).toEqual([recordId]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/web/all?category=null&page=0'))).toEqual([recordId]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/web/tech?category=disaster&page=0'))).toEqual([recordId]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/reviewee?status=approve&page=0', { token: writer }))).toEqual([recordId]);
  expect(ids(await e2e.ok<Loose>('GET', '/api/v1/record/reviewer?status=approve&page=0', { token: reviewer }))).toEqual([recordId]);
  const hot = await e2e.ok<Loose>('GET', '/api/v1/record/hot');
  expect(hot.records.map((r: Loose) => r.record_id)).toEqual([recordId]);

  // A comment as the back office sends it, then the detail page.
  await e2e.ok('POST', '/api/v1/record_comment', { token: reviewer, body: { record_id: recordId, parent_id: null, content: '수고하셨습니다' } });
  const detail = await e2e.ok<Loose>('GET', `/api/v1/record/${recordId}?page=0`);
  expect(detail.comments.content.map((c: Loose) => c.content)).toEqual(['수고하셨습니다']);
  // A type that needs a category still names it, as a person reads it.
  const missing = await e2e.api('GET', '/api/v1/record/web/tech?category=null&page=0');
  expect(missing.body).toEqual({ code: 'C0002', message: '카테고리 값이 누락되었습니다.' });
});
