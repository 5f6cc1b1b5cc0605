import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { applyHouseReport } from '../src/domain/house-reports';
import { bearer as testBearer, expectError } from '../../../test/support';
import { agentBody, signedIn, signedInAdmin, signUp, startAccountsHarness, userBody, type AccountsHarness } from './helpers';

let h: AccountsHarness;
let adminBearer: string;
beforeAll(async () => {
  h = await startAccountsHarness('acctbackoffice');
  adminBearer = (await signedInAdmin(h, { userName: 'bo_admin' })).bearer;
});
afterAll(async () => h.close());

const asAdmin = (method: 'get' | 'put' | 'delete', path: string) => request(h.app)[method](path).set('Authorization', adminBearer);
async function signUpAgent(body: Record<string, unknown> = agentBody()): Promise<Record<string, unknown>> {
  return signUp(h.app, body);
}
const idOf = async (userName: unknown): Promise<number> => (await h.ctx.models.users.findOne({ userName }).lean().exec())!._id;

describe('admin access', () => {
  it.each([
    ['get', '/api/v1/admin/users'],
    ['put', '/api/v1/admin/users/1/suspension'],
    ['delete', '/api/v1/admin/users/1/suspension'],
    ['get', '/api/v1/admin/withdrawals'],
    ['put', '/api/v1/admin/withdrawals/1'],
    ['get', '/api/v1/admin/stats/users'],
  ] as const)('%s %s: 401 J0000 without a token, 403 J0006 for a member', async (method, path) => {
    expectError(await request(h.app)[method](path).send({ reason: 'x' }), 401, 'J0000');
    const { bearer } = await signedIn(h.app);
    expectError(await request(h.app)[method](path).set('Authorization', bearer).send({ reason: 'x' }), 403, 'J0006');
  });

  it('rejects bad input with Korean C0002 messages', async () => {
    const member = await signUp(h.app);
    const id = await idOf(member.userName);
    for (const body of [{}, { reason: '' }, { reason: 'a'.repeat(201) }, { reason: 'ok', extra: 1 }]) {
      const res = await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).send(body);
      expectError(res, 400, 'C0002');
      expect(res.body.message).toMatch(/[가-힣]/);
    }
    expectError(await asAdmin('put', '/api/v1/admin/users/abc/suspension').send({ reason: 'ok' }), 400, 'C0002');
    expectError(await asAdmin('get', '/api/v1/admin/users?status=GONE'), 400, 'C0002');
    expectError(await asAdmin('get', '/api/v1/admin/users?size=-5'), 400, 'C0002');
    expectError(await asAdmin('get', '/api/v1/admin/users?search=%00'), 400, 'C0002');
    expect((await asAdmin('get', '/api/v1/admin/users?size=101')).body.data.size).toBe(100);
    expectError(await asAdmin('get', '/api/v1/admin/withdrawals?page=-1'), 400, 'C0002');
    expectError(await asAdmin('put', '/api/v1/admin/users/999999/suspension').send({ reason: 'ok' }), 404, 'C0001');
  });
});

describe('GET /api/v1/admin/users', () => {
  it('searches userName, nickname, e-mail and phone case-insensitively, filters, newest first, pages', async () => {
    const tag = randomUUID().slice(0, 6);
    const a = await signUp(h.app, userBody({ email: `Find${tag}@example.com` }));
    const b = await signUpAgent(agentBody({ company_email: `find${tag}x@example.com` }));
    const res = await asAdmin('get', `/api/v1/admin/users?search=FIND${tag.toUpperCase()}&size=1`).expect(200);
    expect(res.body.data).toMatchObject({ totalElements: 2, totalPages: 2, size: 1, number: 0, first: true, last: false });
    expect(res.body.data.content[0]).toEqual({
      id: await idOf(b.userName),
      userName: b.userName,
      nickName: b.nick_name,
      email: `find${tag}x@example.com`,
      phoneNum: b.phone_num,
      userType: 'AGENT',
      authority: 'USER',
      status: 'ACTIVE',
      createdAt: expect.stringMatching(/\+09:00$/),
      suspenseReason: null,
      reportedAt: null,
      reportCount: 0,
    });
    const byType = await asAdmin('get', `/api/v1/admin/users?search=${tag}&userType=NONE`).expect(200);
    expect(byType.body.data.content.map((u: { userName: string }) => u.userName)).toEqual([a.userName]);
    const byPhone = await asAdmin('get', `/api/v1/admin/users?search=${String(a.phone_num).slice(3)}`).expect(200);
    expect(byPhone.body.data.content.map((u: { userName: string }) => u.userName)).toContain(a.userName);
    const byNick = await asAdmin('get', `/api/v1/admin/users?search=${encodeURIComponent(String(a.nick_name))}`).expect(200);
    expect(byNick.body.data.content.map((u: { userName: string }) => u.userName)).toEqual([a.userName]);
  });
});

describe('suspension', () => {
  it('refuses sign-in (U0012) and writes, revokes refresh tokens, shows the reason; lifting restores', async () => {
    const session = await signedIn(h.app);
    const id = await idOf(session.body.userName);
    const first = await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).send({ reason: '욕설' }).expect(200);
    expect(first.body.data).toBe(id);
    const stored = await h.ctx.models.users.findById(id).lean().exec();
    expect(stored).toMatchObject({ status: 'SUSPENDED', suspension: { reason: '욕설' }, version: 2 });
    expect(stored?.pendingEvents.at(-1)?.data).toMatchObject({ status: 'SUSPENDED', version: 2 });

    const signIn = await request(h.app).post('/api/v1/users/sign-in').send({ userName: session.body.userName, password: session.body.password });
    expectError(signIn, 403, 'U0012', '이용이 정지된 계정입니다.');
    const reissue = await request(h.app).post('/api/v1/users/reissue').set('Cookie', `RefreshToken=${session.refresh}`).send({ access_token: session.bearer });
    expect(reissue.status).toBe(401);
    expectError(await request(h.app).put('/api/v1/users/update/nick-name').set('Authorization', session.bearer).send({ nick_name: 'newnick1' }), 403, 'U0012');
    const profile = await request(h.app).get('/api/v1/users').set('Authorization', session.bearer).expect(200);
    expect(profile.body.data).toMatchObject({ suspenseReason: '욕설', reportedAt: null });

    // Again: the first time stays, the reason changes, no new snapshot (the status did not change).
    await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).send({ reason: '도배' }).expect(200);
    const again = await h.ctx.models.users.findById(id).lean().exec();
    expect(again?.suspension).toEqual({ reason: '도배', suspendedAt: stored?.suspension?.suspendedAt });
    expect(again?.version).toBe(2);
    const listed = await asAdmin('get', `/api/v1/admin/users?status=SUSPENDED&search=${String(session.body.userName)}`).expect(200);
    expect(listed.body.data.content[0]).toMatchObject({ id, status: 'SUSPENDED', suspenseReason: '도배' });

    expect((await asAdmin('delete', `/api/v1/admin/users/${id}/suspension`).expect(200)).body.data).toBe(id);
    expect(await h.ctx.models.users.findById(id).lean().exec()).toMatchObject({ status: 'ACTIVE', suspension: null, version: 3 });
    const back = await signedIn(h.app, session.body);
    await request(h.app).put('/api/v1/users/update/nick-name').set('Authorization', back.bearer).send({ nick_name: 'newnick1' }).expect(200);
    expect((await request(h.app).get('/api/v1/users').set('Authorization', back.bearer)).body.data.suspenseReason).toBeNull();
  });

  it('an administrator cannot be suspended (403 C0003)', async () => {
    expectError(await asAdmin('put', `/api/v1/admin/users/${await idOf('bo_admin')}/suspension`).send({ reason: '테스트' }), 403, 'C0003');
  });
});

describe('withdrawals', () => {
  it('lists open requests oldest first with the Korean reasons; completing erases the data and frees the identity', async () => {
    const older = await signedIn(h.app);
    const newer = await signedIn(h.app, await signUpAgent(agentBody()));
    for (const session of [older, newer]) {
      await request(h.app)
        .post('/api/v1/users/withdrawal')
        .set('Authorization', session.bearer)
        .send({ reason: ['재가입', '기타'], content: '안녕히' })
        .expect(200);
      h.clock.advance(1000);
    }
    const list = await asAdmin('get', '/api/v1/admin/withdrawals?size=100').expect(200);
    const olderId = await idOf(older.body.userName);
    const newerId = await idOf(newer.body.userName);
    const ids = list.body.data.content.map((w: { userId: number }) => w.userId);
    expect(ids.indexOf(olderId)).toBeLessThan(ids.indexOf(newerId));
    expect(list.body.data.content.find((w: { userId: number }) => w.userId === newerId)).toEqual({
      userId: newerId,
      userName: newer.body.userName,
      nickName: newer.body.nick_name,
      userType: 'AGENT',
      reasons: ['재가입', '기타'],
      content: '안녕히',
      requestedAt: expect.stringMatching(/\+09:00$/),
    });

    expect((await asAdmin('put', `/api/v1/admin/withdrawals/${newerId}`).expect(200)).body.data).toBe(newerId);
    const erased = await h.ctx.models.users.findById(newerId).lean().exec();
    expect(erased).toMatchObject({ status: 'WITHDRAWN', agent: null, userName: `withdrawn:${newerId}`, nickName: `withdrawn:${newerId}` });
    for (const value of [newer.body.userName, newer.body.nick_name, newer.body.phone_num, newer.body.company_email])
      expect(JSON.stringify(erased)).not.toContain(String(value));
    expect(erased?.pendingEvents.at(-1)?.data).toMatchObject({ status: 'WITHDRAWN', userName: `withdrawn:${newerId}` });

    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: newer.body.userName, password: newer.body.password }), 400, 'U0001');
    expect(
      (await request(h.app).post('/api/v1/users/reissue').set('Cookie', `RefreshToken=${newer.refresh}`).send({ access_token: newer.bearer })).status,
    ).toBe(401);
    // The old identity signs up again.
    await signUp(h.app, {
      ...userBody(),
      userName: newer.body.userName,
      nick_name: newer.body.nick_name,
      phone_num: newer.body.phone_num,
      email: newer.body.company_email,
    });
    expectError(await asAdmin('put', `/api/v1/admin/withdrawals/${newerId}`), 404, 'C0001');
    const after = await asAdmin('get', '/api/v1/admin/withdrawals?size=100').expect(200);
    expect(after.body.data.content.map((w: { userId: number }) => w.userId)).not.toContain(newerId);
    expectError(await asAdmin('put', `/api/v1/admin/withdrawals/${await idOf('bo_admin')}`), 404, 'C0001');
  });

  it('a suspended member with an open request stays listed and can be completed', async () => {
    const session = await signedIn(h.app);
    const id = await idOf(session.body.userName);
    await request(h.app)
      .post('/api/v1/users/withdrawal')
      .set('Authorization', session.bearer)
      .send({ reason: ['기타'], content: '' })
      .expect(200);
    await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).send({ reason: '사유' }).expect(200);
    const list = await asAdmin('get', '/api/v1/admin/withdrawals?size=100').expect(200);
    expect(list.body.data.content.map((w: { userId: number }) => w.userId)).toContain(id);
    await asAdmin('delete', `/api/v1/admin/users/${id}/suspension`).expect(200);
    expect(await h.ctx.models.users.findById(id).lean().exec()).toMatchObject({ status: 'WITHDRAWAL_REQUESTED' });
    await asAdmin('put', `/api/v1/admin/withdrawals/${id}`).expect(200);
  });
});

describe('houses.report.created', () => {
  it('keeps the latest report time and the count, once per event', async () => {
    const session = await signedIn(h.app);
    const id = await idOf(session.body.userName);
    const event = (at: string) => ({ v: 1 as const, eventId: randomUUID(), houseId: 7, authorId: id, reporterId: 99, reportType: 'ETC', occurredAt: at });
    const late = event('2024-05-02T00:00:00.000Z');
    await applyHouseReport(h.ctx, late);
    await applyHouseReport(h.ctx, late);
    await applyHouseReport(h.ctx, event('2024-05-01T00:00:00.000Z'));
    const stored = await h.ctx.models.users.findById(id).lean().exec();
    expect({ count: stored?.reportCount, at: stored?.reportedAt?.toISOString() }).toEqual({ count: 2, at: '2024-05-02T00:00:00.000Z' });
    const profile = await request(h.app).get('/api/v1/users').set('Authorization', session.bearer).expect(200);
    expect(profile.body.data.reportedAt).toBe('2024-05-02T09:00:00.000+09:00');
    const list = await asAdmin('get', `/api/v1/admin/users?search=${String(session.body.userName)}`).expect(200);
    expect(list.body.data.content[0]).toMatchObject({ reportCount: 2, reportedAt: '2024-05-02T09:00:00.000+09:00' });
  });
});

describe('GET /api/v1/admin/stats/users', () => {
  it('counts by type, age and join path, and sign-ups per Seoul day for 30 days (withdrawn not counted)', async () => {
    const before = (await asAdmin('get', '/api/v1/admin/stats/users').expect(200)).body.data;
    expect(before.signUpsByDay).toHaveLength(30);
    expect(before.byJoinPath.map((p: { joinPath: string }) => p.joinPath)).toEqual([
      'FRIEND',
      'NAVER_CAFE',
      'NAVER_BLOG',
      'NAVER_BAND',
      'FACEBOOK',
      'INSTAGRAM',
      'SEARCH',
      'ETC',
    ]);
    // 2024-06-10 23:30 in Seoul is 14:30 UTC: the sign-up belongs to Seoul's June 10.
    h.clock.set(new Date('2024-06-10T14:30:00Z'));
    await signUp(h.app, userBody({ age: '60대 이상', join_paths: ['페이스북'] }));
    h.clock.set(new Date('2024-06-10T15:30:00Z'));
    await signUpAgent(agentBody({ age: '20대 미만', join_paths: ['페이스북'] }));
    const stats = (await asAdmin('get', '/api/v1/admin/stats/users').expect(200)).body.data;
    h.clockAt(0);
    expect(stats.total).toBe(before.total + 2);
    expect(stats.byUserType.AGENT).toBe(before.byUserType.AGENT + 1);
    expect(stats.byAge.SIXTY).toBe(before.byAge.SIXTY + 1);
    expect(stats.byAge.TEN).toBe(before.byAge.TEN + 1);
    expect(stats.byJoinPath.find((p: { joinPath: string }) => p.joinPath === 'FACEBOOK').count).toBe(2);
    expect(stats.signUpsByDay.at(-1)).toEqual({ date: '2024-06-11', count: 1 });
    expect(stats.signUpsByDay.at(-2)).toEqual({ date: '2024-06-10', count: 1 });
    expect(stats.signUpsByDay[0]).toEqual({ date: '2024-05-13', count: 0 });
    expect(Object.keys(stats.byAge)).toEqual(['TEN', 'TWENTY', 'THIRTY', 'FORTY', 'FIFTY', 'SIXTY']);
    expect(Object.keys(stats.byUserType)).toEqual(['NONE', 'AGENT', 'WEB', 'SERVER']);
    const withdrawn = await h.ctx.models.users.countDocuments({ status: 'WITHDRAWN' });
    expect(withdrawn).toBeGreaterThan(0);
    expect(stats.total).toBe((await h.ctx.models.users.countDocuments()) - withdrawn);
  });
});

describe('a completed withdrawal is final (issue 19 item 1)', () => {
  it('refuses the old access tokens everywhere in accounts, every profile change, reissue and sign-in; nothing revives the account', async () => {
    const body = await signUp(h.app);
    const session = await signedIn(h.app, body);
    const second = await signedIn(h.app, body);
    const id = await idOf(body.userName);
    await request(h.app)
      .post('/api/v1/users/withdrawal')
      .set('Authorization', session.bearer)
      .send({ reason: ['기타'], content: '' })
      .expect(200);
    await asAdmin('put', `/api/v1/admin/withdrawals/${id}`).expect(200);
    const erased = await h.ctx.models.users.findById(id).lean().exec();

    // A token without a session id (issued before sessions had ids) is refused by the write guard.
    const legacyToken = testBearer({ userId: id, userName: String(body.userName) });
    for (const bearer of [session.bearer, second.bearer, legacyToken]) {
      const as = (method: 'put' | 'post', path: string, payload: object) => request(h.app)[method](path).set('Authorization', bearer).send(payload);
      expectError(await as('put', '/api/v1/users/update/password', { password: 'Reviv3d!!' }), 401, 'J0004');
      expectError(await as('put', '/api/v1/users/update/nick-name', { nick_name: '부활' }), 401, 'J0004');
      expectError(await as('put', '/api/v1/users', { password: 'Reviv3d!!', nick_name: '부활' }), 401, 'J0004');
      expectError(await as('post', '/api/v1/users/check/password', { password: String(body.password) }), 401, 'J0004');
      expectError(await as('post', '/api/v1/users/withdrawal', { reason: ['기타'], content: '' }), 401, 'J0004');
    }
    expectError(await request(h.app).get('/api/v1/users').set('Authorization', session.bearer), 401, 'J0004');
    for (const s of [session, second]) {
      expectError(await request(h.app).post('/api/v1/users/reissue').set('Cookie', `RefreshToken=${s.refresh}`).send({ access_token: s.bearer }), 401, 'J0004');
    }
    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: body.userName, password: body.password }), 400, 'U0001');
    expectError(
      await request(h.app)
        .post('/api/v1/users/sign-in')
        .send({ userName: `withdrawn:${id}`, password: 'Reviv3d!!' }),
      400,
      'U0002',
    );
    expect(await h.ctx.models.users.findById(id).lean().exec()).toEqual(erased);
    expectError(await asAdmin('put', `/api/v1/admin/users/${id}/suspension`).send({ reason: '부활 시도' }), 404, 'C0001');
  });
});
