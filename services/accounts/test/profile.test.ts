import { FormatMessages } from '@binzip/shared';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { HUGE, lastCode, signUp, signedIn, startAccountsHarness, type AccountsHarness } from './helpers';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctprofile');
});
afterAll(async () => h.close());

const put = (path: string, bearer: string, body: unknown) =>
  request(h.app)
    .put(path)
    .set('Authorization', bearer)
    .send(body as object);
const profile = async (bearer: string) => (await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data;
const signInWith = (userName: unknown, password: string) => request(h.app).post('/api/v1/users/sign-in').send({ userName, password });
let phoneSeq = 0;
const freshPhone = () => `0188${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeq).padStart(4, '0')}`;

async function verifyPhone(phone: string): Promise<void> {
  await request(h.app).post('/api/v1/users/send/sms').send({ phone_num: phone }).expect(200);
  const res = await request(h.app)
    .post('/api/v1/users/check/sms')
    .send({ phone_num: phone, code: lastCode(h.sms, phone) });
  expect(res.body.data).toBe(true);
}

describe('PUT /api/v1/users/update/nick-name', () => {
  it('changes the nickname and bumps the snapshot version', async () => {
    const { bearer, body } = await signedIn(h.app);
    await put('/api/v1/users/update/nick-name', bearer, { nick_name: '바뀐닉' + String(body.nick_name).slice(-6) }).expect(200);
    const data = await profile(bearer);
    expect(data.nick_name).toBe('바뀐닉' + String(body.nick_name).slice(-6));
    const stored = await h.ctx.models.users.findById(data.id).lean().exec();
    expect(stored?.version).toBe(2);
    expect(stored?.pendingEvents.map((e) => (e.data as { nick_name: string; version: number }).version)).toEqual([1, 2]);
  });

  it('answers U0005 for a nickname someone else has, and treats the own nickname as no change', async () => {
    const { bearer, body } = await signedIn(h.app);
    const other = await signUp(h.app);
    expectError(await put('/api/v1/users/update/nick-name', bearer, { nick_name: other.nick_name }), 400, 'U0005', '이미 존재하는 닉네임입니다.');
    await put('/api/v1/users/update/nick-name', bearer, { nick_name: body.nick_name }).expect(200);
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(stored?.version).toBe(1);
  });

  it('answers C0002 with the nickname message, J0000 without a token', async () => {
    const { bearer } = await signedIn(h.app);
    expectError(await put('/api/v1/users/update/nick-name', bearer, { nick_name: 'bad nick!' }), 400, 'C0002', FormatMessages.nickName);
    expectError(await put('/api/v1/users/update/nick-name', bearer, { nick_name: HUGE }), 400, 'C0002', FormatMessages.nickName);
    expectError(await put('/api/v1/users/update/nick-name', bearer, { nick_name: null }), 400, 'C0002');
    expectError(await request(h.app).put('/api/v1/users/update/nick-name').send({ nick_name: 'abc' }), 401, 'J0000');
  });
});

describe('PUT /api/v1/users/update/password', () => {
  it('changes the password (old one stops working)', async () => {
    const { bearer, body } = await signedIn(h.app);
    await put('/api/v1/users/update/password', bearer, { password: 'N3wPass!!' }).expect(200);
    expectError(await signInWith(body.userName, String(body.password)), 400, 'U0002');
    await signInWith(body.userName, 'N3wPass!!').expect(200);
  });

  it('answers U0006 for the same password and C0002 for a bad format', async () => {
    const { bearer, body } = await signedIn(h.app);
    expectError(await put('/api/v1/users/update/password', bearer, { password: body.password }), 400, 'U0006', '비밀번호가 같습니다.');
    expectError(await put('/api/v1/users/update/password', bearer, { password: 'short' }), 400, 'C0002', FormatMessages.password);
    expectError(await put('/api/v1/users/update/password', bearer, { password: HUGE }), 400, 'C0002', FormatMessages.password);
    expectError(await put('/api/v1/users/update/password', bearer, { new_password: 'N3wPass!!' }), 400, 'C0002');
  });
});

describe('PUT /api/v1/users', () => {
  it('changes nickname, password and a verified phone together', async () => {
    const { bearer, body } = await signedIn(h.app);
    const phone = freshPhone();
    await verifyPhone(phone);
    const nick = '통합' + String(body.nick_name).slice(-6);
    await put('/api/v1/users', bearer, { password: body.password, nick_name: nick, new_password: 'Chang3d!!', phone_num: phone }).expect(200);
    expect(await profile(bearer)).toMatchObject({ nick_name: nick, phone_num: phone });
    await signInWith(body.userName, 'Chang3d!!').expect(200);
  });

  it('accepts only the current password with nothing else (no change) and null for fields left alone', async () => {
    const { bearer, body } = await signedIn(h.app);
    await put('/api/v1/users', bearer, { password: body.password }).expect(200);
    await put('/api/v1/users', bearer, { password: body.password, nick_name: null, new_password: null, phone_num: null }).expect(200);
    expect((await profile(bearer)).nick_name).toBe(body.nick_name);
  });

  it('answers U0002 for a wrong current password and changes nothing', async () => {
    const { bearer, body } = await signedIn(h.app);
    expectError(await put('/api/v1/users', bearer, { password: 'Wrong0pw!', nick_name: 'zzz' + String(body.nick_name).slice(-6) }), 400, 'U0002');
    expect((await profile(bearer)).nick_name).toBe(body.nick_name);
  });

  it('answers U0005, U0006, U0000 and U0011 as the single-field endpoints do', async () => {
    const { bearer, body } = await signedIn(h.app);
    const other = await signUp(h.app);
    expectError(await put('/api/v1/users', bearer, { password: body.password, nick_name: other.nick_name }), 400, 'U0005');
    expectError(await put('/api/v1/users', bearer, { password: body.password, new_password: body.password }), 400, 'U0006');
    expectError(await put('/api/v1/users', bearer, { password: body.password, phone_num: other.phone_num }), 400, 'U0000');
    expectError(await put('/api/v1/users', bearer, { password: body.password, phone_num: freshPhone() }), 400, 'U0011');
    // Nothing from the failed attempts was applied.
    await signInWith(body.userName, String(body.password)).expect(200);
  });

  it('answers C0002 for formats, a missing password, unknown fields and huge values', async () => {
    const { bearer, body } = await signedIn(h.app);
    expectError(await put('/api/v1/users', bearer, { nick_name: 'abc' }), 400, 'C0002', '비밀번호 값이 누락되었습니다.');
    expectError(await put('/api/v1/users', bearer, { password: body.password, new_password: 'weak' }), 400, 'C0002', FormatMessages.password);
    expectError(await put('/api/v1/users', bearer, { password: body.password, phone_num: '1234' }), 400, 'C0002', FormatMessages.phone);
    expectError(await put('/api/v1/users', bearer, { password: body.password, nick_name: '!!' }), 400, 'C0002', FormatMessages.nickName);
    expectError(await put('/api/v1/users', bearer, { password: body.password, email: 'a@b.co' }), 400, 'C0002', 'email 필드는 허용되지 않습니다.');
    expectError(await put('/api/v1/users', bearer, { password: HUGE }), 400, 'C0002');
    expectError(await request(h.app).put('/api/v1/users').send({ password: 'x' }), 401, 'J0000');
  });
});

describe('POST /api/v1/users/withdrawal', () => {
  it('stores reasons as codes and the content, marks WITHDRAWAL_REQUESTED; again is U0008', async () => {
    const { bearer, body } = await signedIn(h.app);
    await request(h.app)
      .post('/api/v1/users/withdrawal')
      .set('Authorization', bearer)
      .send({ reason: ['이용빈도 낮음', '개인 정보 보호'], content: '잘 썼습니다' })
      .expect(200);
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(stored).toMatchObject({
      status: 'WITHDRAWAL_REQUESTED',
      version: 2,
      withdrawal: { reasons: ['ROW_USE', 'PERSONAL_PROTECTION'], content: '잘 썼습니다' },
    });
    const again = await request(h.app)
      .post('/api/v1/users/withdrawal')
      .set('Authorization', bearer)
      .send({ reason: ['기타'], content: '' });
    expectError(again, 400, 'U0008', '이미 탈퇴신청 되었습니다.');
    expect((await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec())?.version).toBe(2);
  });

  it('answers C0002 for enum names instead of texts, wrong types and huge content; J0000 without token', async () => {
    const { bearer } = await signedIn(h.app);
    const send = (b: unknown) =>
      request(h.app)
        .post('/api/v1/users/withdrawal')
        .set('Authorization', bearer)
        .send(b as object);
    expectError(await send({ reason: ['ROW_USE'], content: '' }), 400, 'C0002', '사유 값이 올바르지 않습니다.');
    expectError(await send({ reason: '기타', content: '' }), 400, 'C0002');
    expectError(await send({ reason: ['기타'], content: HUGE }), 400, 'C0002');
    expectError(await send({ reason: ['기타'], content: 1 }), 400, 'C0002');
    expectError(
      await request(h.app)
        .post('/api/v1/users/withdrawal')
        .send({ reason: ['기타'], content: '' }),
      401,
      'J0000',
    );
    const stored = await h.ctx.models.users.find({ status: 'WITHDRAWAL_REQUESTED' }).countDocuments();
    expect(stored).toBe(1);
  });
});

describe('audit: parallel changes of one account', () => {
  it('applies 20 simultaneous nickname changes one by one (no 5xx), each with its own snapshot version', async () => {
    const { bearer, body } = await signedIn(h.app);
    const tag = String(body.nick_name).slice(-6);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put('/api/v1/users/update/nick-name', bearer, { nick_name: `동시${i}x${tag}` })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(stored?.version).toBe(21);
    expect(stored?.pendingEvents.map((e) => (e.data as { version: number }).version)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });

  it('answers a parallel double submission of a password change as a sequential one would (one 200, then U0002 / U0006)', async () => {
    const a = await signedIn(h.app);
    const viaProfile = await Promise.all(
      Array.from({ length: 3 }, () => put('/api/v1/users', a.bearer, { password: a.body.password, new_password: 'Twice0pw!' })),
    );
    expect(viaProfile.map((r) => r.body.code).sort()).toEqual(['SUCCESS', 'U0002', 'U0002']);
    await signInWith(a.body.userName, 'Twice0pw!').expect(200);

    const b = await signedIn(h.app);
    const direct = await Promise.all(Array.from({ length: 3 }, () => put('/api/v1/users/update/password', b.bearer, { password: 'Twice0pw!' })));
    expect(direct.map((r) => r.body.code).sort()).toEqual(['SUCCESS', 'U0006', 'U0006']);
    await signInWith(b.body.userName, 'Twice0pw!').expect(200);
  });
});
