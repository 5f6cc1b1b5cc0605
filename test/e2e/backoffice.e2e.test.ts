/**
 * The back office end to end: the built gateway and all five services as real processes (run `npx tsc -b`
 * first) on the real stores. An administrator (ADMIN_BOOTSTRAP) suspends a member who holds a live access
 * token, completes a withdrawal, handles reports, pins a promotion post and reads the statistics.
 */
import { eventually } from '../support';
import { sampleListing, startE2eSystem, type E2eSystem, type NotificationItem } from '../support/e2e';

jest.setTimeout(240_000);

const ADMIN = { userName: 'boadmin', password: 'Adm1nPass!', nick_name: '운영자', phone_num: '01099990001', email: 'boadmin@example.com', userType: 'WEB' };
/** A SERVER team of two, so a record of one is reviewed by the other (the WEB team has the administrator alone). */
const SERVER_WRITER = {
  userName: 'bowriter',
  password: 'Wr1terPass!',
  nick_name: '서버작성자',
  phone_num: '01099990002',
  email: 'bowriter@example.com',
  userType: 'SERVER',
};
const SERVER_REVIEWER = {
  userName: 'boreviewer',
  password: 'Rev1ewPass!',
  nick_name: '서버검토자',
  phone_num: '01099990003',
  email: 'boreviewer@example.com',
  userType: 'SERVER',
};
const PASSWORD = 'Passw0rd!';

let e2e: E2eSystem;
let admin: string;

beforeAll(async () => {
  e2e = await startE2eSystem('backofficee2e', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
    env: { LOG_LEVEL: 'warn', BCRYPT_COST: '4', ADMIN_BOOTSTRAP: JSON.stringify([ADMIN, SERVER_WRITER, SERVER_REVIEWER]), OUTBOX_INTERVAL_MS: '200' },
  });
  admin = await e2e.signIn(ADMIN.userName, ADMIN.password);
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
const call = (method: string, path: string, token?: string, body?: unknown) => e2e.api<Loose>(method, path, { token, body });
const ok = <T = Loose>(method: string, path: string, token?: string, body?: unknown) => e2e.ok<T>(method, path, { token, body });

let n = 0;
function memberBody(label: string) {
  n += 1;
  return {
    userName: `${label}${n}`,
    password: PASSWORD,
    nick_name: `${label}닉${n}`,
    phone_num: `0108888${String(n).padStart(4, '0')}`,
    age: '30대',
    join_paths: ['검색'],
    terms: ['SERVICE_USED_AGREE'],
    email: `${label}${n}@example.com`,
  };
}

async function member(label: string): Promise<{ body: ReturnType<typeof memberBody>; token: string; id: number }> {
  const body = await e2e.signUp(memberBody(label));
  const token = await e2e.signIn(body.userName, PASSWORD);
  const id = (await ok<{ id: number }>('GET', '/api/v1/users', token)).id;
  return { body, token, id };
}

// In 강원, which the statistics test counts by region.
const listing = (title: string) => ({ ...sampleListing(title), city: '강원특별자치도 평창군 대관령면', zipCode: '25354' });
const board = (title: string, prefixCategory = 'DEFAULT') => ({
  title,
  code: '<p>본문입니다</p>',
  category: null,
  imageUrls: [],
  prefixCategory,
  fixed: false,
});
const record = { title: '회고', content: '내용입니다', part: 'web', type: 'tech', category: 'disaster' };

/** Content of the administrator's that members write against. */
async function adminContent() {
  const boardId = await ok<number>('POST', '/api/v1/boards', admin, board('운영자 글'));
  const houseId = await ok<number>('POST', '/api/v1/houses', admin, listing('운영자 매물'));
  const recordId = await ok<number>('POST', '/api/v1/record', admin, record);
  return { boardId, houseId, recordId };
}

test('administrators only: 401 J0000 without a token, 403 J0006 for a member, on every admin prefix', async () => {
  const { token } = await member('plain');
  for (const path of ['/api/v1/admin/users', '/api/v1/admin/withdrawals', '/api/v1/admin/stats/users', '/api/v1/admin/reports', '/api/v1/admin/stats/houses']) {
    expect((await call('GET', path)).body.code).toBe('J0000');
    const res = await call('GET', path, token);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'J0006' });
  }
  const pin = await call('PUT', '/api/v1/admin/boards/1/fixed', token, { fixed: true });
  expect({ status: pin.status, code: pin.body.code }).toEqual({ status: 403, code: 'J0006' });
});

test('a suspension refuses a live token writes in every service within 2 seconds; lifting restores them', async () => {
  const target = await adminContent();
  const m = await member('susp');
  const ownBoard = await ok<number>('POST', '/api/v1/boards', m.token, board('내 글'));
  const writes: Array<[string, () => Promise<{ status: number; body: Loose }>]> = [
    ['board', () => call('POST', '/api/v1/boards', m.token, board('또 내 글'))],
    ['comment', () => call('POST', '/api/v1/comments', m.token, { boardId: target.boardId, content: '댓글' })],
    ['house', () => call('POST', '/api/v1/houses', m.token, listing('내 매물'))],
    ['love', () => call('PUT', `/api/v1/loves/${target.boardId}`, m.token)],
    ['scrap', () => call('PUT', `/api/v1/scraps/${target.houseId}`, m.token)],
    ['record comment', () => call('POST', '/api/v1/record_comment', m.token, { record_id: target.recordId, content: '기록 댓글' })],
  ];

  const suspended = await call('PUT', `/api/v1/admin/users/${m.id}/suspension`, admin, { reason: '도배' });
  expect(suspended.body).toEqual({ code: 'SUCCESS', message: '성공', data: m.id });
  const deadline = Date.now() + 2_000;
  for (const [name, write] of writes) {
    const res = await eventually(
      async () => {
        const r = await write();
        return r.body.code === 'U0012' ? r : false;
      },
      Math.max(deadline - Date.now(), 0),
    );
    expect({ name, status: res.status, message: res.body.message }).toEqual({ name, status: 403, message: '이용이 정지된 계정입니다.' });
  }
  expect(Date.now()).toBeLessThanOrEqual(deadline + 100);
  // Public reads stay public, the member's own reads work, sign-in is refused and shows nothing new.
  expect((await call('GET', `/api/v1/boards/${ownBoard}`)).status).toBe(200);
  expect((await ok<Loose>('GET', '/api/v1/users', m.token)).suspenseReason).toBe('도배');
  const signIn = await call('POST', '/api/v1/users/sign-in', undefined, { userName: m.body.userName, password: PASSWORD });
  expect({ status: signIn.status, code: signIn.body.code }).toEqual({ status: 403, code: 'U0012' });
  const listed = await ok<Loose>('GET', `/api/v1/admin/users?status=SUSPENDED&search=${m.body.userName}`, admin);
  expect(listed.content).toEqual([expect.objectContaining({ id: m.id, status: 'SUSPENDED', suspenseReason: '도배' })]);

  await ok('DELETE', `/api/v1/admin/users/${m.id}/suspension`, admin);
  for (const [name, write] of writes) {
    const res = await eventually(async () => {
      const r = await write();
      return r.status === 200 ? r : false;
    }, 10_000);
    expect({ name, code: res.body.code }).toEqual({ name, code: 'SUCCESS' });
  }
  await e2e.signIn(m.body.userName, PASSWORD);
});

test('completing a withdrawal erases the identity, frees it, and every service shows 탈퇴한 사용자', async () => {
  const target = await adminContent();
  const leaver = await member('leaver');
  const boardId = await ok<number>('POST', '/api/v1/boards', leaver.token, board('떠나는 글'));
  await ok('POST', '/api/v1/comments', leaver.token, { boardId: target.boardId, content: '남기는 댓글' });
  const houseId = await ok<number>('POST', '/api/v1/houses', leaver.token, listing('떠나는 매물'));
  await ok('PUT', `/api/v1/houses/apply/${houseId}`, admin, { approve: true });
  await ok('POST', '/api/v1/record_comment', leaver.token, { record_id: target.recordId, content: '기록 댓글' });
  await eventually(
    async () =>
      (await ok<Loose>('GET', '/api/v1/notifications', admin)).notifications.content.some((i: NotificationItem) => i.comment_user === leaver.body.nick_name),
    15_000,
  );

  await ok('POST', '/api/v1/users/withdrawal', leaver.token, { reason: ['재가입'], content: '감사했습니다' });
  const requests = await ok<Loose>('GET', '/api/v1/admin/withdrawals', admin);
  expect(requests.content).toContainEqual(expect.objectContaining({ userId: leaver.id, reasons: ['재가입'], content: '감사했습니다' }));
  expect(await ok('PUT', `/api/v1/admin/withdrawals/${leaver.id}`, admin)).toBe(leaver.id);

  // Within 2 s, as for a suspension, the leaver's access token writes nowhere: every service answers 401 J0004.
  const writes: Array<[string, string, unknown]> = [
    ['POST', '/api/v1/boards', board('남은 토큰의 글')],
    ['POST', '/api/v1/comments', { boardId: target.boardId, content: '남은 토큰의 댓글' }],
    ['POST', '/api/v1/houses', listing('남은 토큰의 매물')],
    ['POST', '/api/v1/record_comment', { record_id: target.recordId, content: '남은 토큰의 기록 댓글' }],
    ['PUT', '/api/v1/notifications/1', undefined],
    ['PUT', '/api/v1/users/update/nick-name', { nick_name: '되살아난닉' }],
  ];
  const refusedEverywhere = async () => {
    const answers = await Promise.all(writes.map(async ([method, path, body]) => (await call(method, path, leaver.token, body)).body.code));
    return answers.every((code) => code === 'J0004') ? answers : false;
  };
  await eventually(refusedEverywhere, 2_000, 100);
  expect(await refusedEverywhere()).toEqual(writes.map(() => 'J0004'));

  const GONE = '탈퇴한 사용자';
  await eventually(async () => (await ok<Loose>('GET', `/api/v1/boards/${boardId}`)).nickName === GONE, 15_000);
  const adminBoard = await ok<Loose>('GET', `/api/v1/boards/${target.boardId}`);
  expect(adminBoard.comments.map((c: Loose) => c.nickName)).toEqual([GONE]);
  await eventually(async () => (await ok<Loose>('GET', `/api/v1/houses/${houseId}`)).nickName === GONE, 15_000);
  await eventually(async () => (await ok<Loose>('GET', `/api/v1/record/${target.recordId}`)).comments.content[0]?.nick_name === GONE, 15_000);
  await eventually(
    async () => (await ok<Loose>('GET', '/api/v1/notifications', admin)).notifications.content.some((i: NotificationItem) => i.comment_user === GONE),
    15_000,
  );

  const oldSignIn = await call('POST', '/api/v1/users/sign-in', undefined, { userName: leaver.body.userName, password: PASSWORD });
  expect(oldSignIn.body.code).toBe('U0001');
  await e2e.signUp(leaver.body);
  await e2e.signIn(leaver.body.userName, PASSWORD);
});

test('a reviewer who withdraws shows as 탈퇴한 사용자 in the review of a record, as reviewer and as review author', async () => {
  const writer = await e2e.signIn(SERVER_WRITER.userName, SERVER_WRITER.password);
  const reviewer = await e2e.signIn(SERVER_REVIEWER.userName, SERVER_REVIEWER.password);
  const reviewerId = (await ok<{ id: number }>('GET', '/api/v1/users', reviewer)).id;
  // Records learns of the team from accounts' events: until then a record of the writer has nobody to review it.
  const recordId = await eventually(async () => {
    const id = await ok<number>('POST', '/api/v1/record', writer, { ...record, part: 'server' });
    return (await ok<Loose>('GET', `/api/v1/record/review/${id}`, writer)).reviewers.length === 1 ? id : false;
  }, 15_000);
  await ok('POST', '/api/v1/record_review', reviewer, { record_id: recordId, content: '검토했습니다', status: 'approve' });
  const before = await ok<Loose>('GET', `/api/v1/record/review/${recordId}`, writer);
  expect(before.reviews.map((r: Loose) => r.nick_name)).toEqual([SERVER_REVIEWER.nick_name]);

  await ok('POST', '/api/v1/users/withdrawal', reviewer, { reason: ['기타'], content: '이동합니다' });
  expect(await ok('PUT', `/api/v1/admin/withdrawals/${reviewerId}`, admin)).toBe(reviewerId);

  const GONE = '탈퇴한 사용자';
  const after = await eventually(async () => {
    const view = await ok<Loose>('GET', `/api/v1/record/review/${recordId}`, writer);
    return view.reviewers[0]?.nick_name === GONE ? view : false;
  }, 15_000);
  expect(after.reviewers).toEqual([{ status: 'approve', nick_name: GONE }]);
  expect(after.reviews).toEqual([expect.objectContaining({ content: '검토했습니다', status: 'approve', nick_name: GONE })]);
  expect(after.nick_name).toBe(SERVER_WRITER.nick_name);
});

test('a report reaches the administrators and the author count; DISMISS lists the listing again, REMOVE deletes it', async () => {
  const { houseId } = await adminContent();
  const inPublicList = async () => ((await ok<Loose>('GET', '/api/v1/houses?size=50')).content as Loose[]).some((item) => item.houseId === houseId);
  const first = await member('reporter');
  const second = await member('reporter');
  await ok('PUT', `/api/v1/houses/report/${houseId}`, first.token, { reportType: 'FAKE_SALE', reportReason: '없는 집' });
  // Out of the public list, still readable by id (the reporter lands on the page, not on an empty one).
  expect(await inPublicList()).toBe(false);
  expect((await call('GET', `/api/v1/houses/${houseId}`, first.token)).status).toBe(200);
  const open = await ok<Loose>('GET', '/api/v1/admin/reports?status=OPEN', admin);
  expect(open.content.find((i: Loose) => i.houseId === houseId)).toMatchObject({
    nickName: '운영자',
    reportCount: 1,
    status: 'OPEN',
    reports: [{ reportType: 'FAKE_SALE', reportTypeName: '허위매물', reportReason: '없는 집', reporterNickName: first.body.nick_name }],
  });
  // houses.report.created reaches accounts.
  await eventually(async () => (await ok<Loose>('GET', `/api/v1/admin/users?search=${ADMIN.userName}`, admin)).content[0]?.reportCount >= 1, 15_000);
  expect((await ok<Loose>('GET', '/api/v1/users', admin)).reportedAt).toMatch(/\+09:00$/);

  expect(await ok('PUT', `/api/v1/admin/reports/${houseId}`, admin, { action: 'DISMISS' })).toBe(houseId);
  expect(await inPublicList()).toBe(true);
  await ok('PUT', `/api/v1/houses/report/${houseId}`, second.token, { reportType: 'ETC', reportReason: '다시' });
  expect(await inPublicList()).toBe(false);
  expect(await ok('PUT', `/api/v1/admin/reports/${houseId}`, admin, { action: 'REMOVE' })).toBe(houseId);
  // Gone for everyone else; its author (here the administrator who wrote it) still reads why (issue 40).
  expect((await call('GET', `/api/v1/houses/${houseId}`, second.token)).status).toBe(404);
  expect((await ok<Loose>('GET', `/api/v1/houses/${houseId}`, admin)).moderation).toMatchObject({ state: 'REMOVED' });
  const again = await call('PUT', `/api/v1/admin/reports/${houseId}`, admin, { action: 'DISMISS' });
  expect({ status: again.status, code: again.body.code }).toEqual({ status: 404, code: 'C0001' });
});

test('pinning promotion posts and the statistics', async () => {
  const ad = await ok<number>('POST', '/api/v1/boards', admin, board('홍보', 'ADVERTISEMENT'));
  const plain = await ok<number>('POST', '/api/v1/boards', admin, board('일반'));
  expect(await ok('PUT', `/api/v1/admin/boards/${ad}/fixed`, admin, { fixed: true })).toBe(ad);
  const ads = await ok<Loose>('GET', '/api/v1/boards?prefix=ADVERTISEMENT');
  expect(ads.content[0]).toMatchObject({ boardId: ad, fixed: true });
  const refused = await call('PUT', `/api/v1/admin/boards/${plain}/fixed`, admin, { fixed: true });
  expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'C0002' });

  const users = await ok<Loose>('GET', '/api/v1/admin/stats/users', admin);
  expect(users.total).toBeGreaterThan(0);
  expect(users.signUpsByDay).toHaveLength(30);
  expect(users.signUpsByDay.at(-1).count).toBeGreaterThan(0);
  const houses = await ok<Loose>('GET', '/api/v1/admin/stats/houses', admin);
  expect(Object.keys(houses)).toEqual(['total', 'byDealState', 'byRentalType', 'byRegion', 'reportedOpen']);
  expect(houses.byRegion.find((r: Loose) => r.region === '강원').count).toBeGreaterThan(0);
});
