import { FormatMessages } from '@binzip/shared';
import request from 'supertest';
import type { MailSender } from '../src/domain/senders';
import { expectError } from '../../../test/support';
import { HUGE, lastCode, signUp, signedIn, startAccountsHarness, userBody, type AccountsHarness } from './helpers';

let h: AccountsHarness;
let mailFails = false;
/** Delegates to the recording sender unless the test switches delivery failure on. */
const flakyMail: MailSender = {
  send: async (to, subject, text) => {
    if (mailFails) throw new Error('SMTP 554 rejected');
    await h.mail.send(to, subject, text);
  },
};

beforeAll(async () => {
  h = await startAccountsHarness('acctverify', { mailSender: flakyMail });
});
afterAll(async () => h.close());
afterEach(() => {
  h.clockAt(0);
  mailFails = false;
});

const post = (path: string, body: unknown) =>
  request(h.app)
    .post(path)
    .send(body as object);
let phoneSeq = 0;
const freshPhone = () => `0167${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeq).padStart(4, '0')}`;
let mailSeq = 0;
const freshEmail = () => `verify${process.pid}_${++mailSeq}@example.com`;

describe('SMS codes', () => {
  it('sends a random 6-digit code (the default length) that checks true exactly once', async () => {
    const phone = freshPhone();
    const sent = await post('/api/v1/users/send/sms', { phone_num: phone });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ code: 'SUCCESS', message: '성공' });
    const code = lastCode(h.sms, phone);
    expect(code).toMatch(/^\d{6}$/);
    const stored = await h.ctx.models.verifications.findById(`sms:${phone}`).lean().exec();
    expect(JSON.stringify(stored)).not.toContain(`"${code}"`);
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code })).body).toEqual({ code: 'SUCCESS', message: '성공', data: true });
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(false);
  });

  it('answers false for a wrong code, an unknown phone, and after 3 minutes', async () => {
    const phone = freshPhone();
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const code = lastCode(h.sms, phone);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code: wrong })).body.data).toBe(false);
    expect((await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code })).body.data).toBe(false);
    h.clockAt(3 * 60_000 + 1);
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(false);
  });

  it('still accepts the code just before 3 minutes have passed', async () => {
    const phone = freshPhone();
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    h.clockAt(3 * 60_000 - 2_000);
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code: lastCode(h.sms, phone) })).body.data).toBe(true);
  });

  it('voids the code after 5 wrong checks, and a new code works again', async () => {
    const phone = freshPhone();
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const code = lastCode(h.sms, phone);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) expect((await post('/api/v1/users/check/sms', { phone_num: phone, code: wrong })).body.data).toBe(false);
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(false);
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code: lastCode(h.sms, phone) })).body.data).toBe(true);
  });

  it('allows 4 wrong checks before the right one', async () => {
    const phone = freshPhone();
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const code = lastCode(h.sms, phone);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 4; i++) await post('/api/v1/users/check/sms', { phone_num: phone, code: wrong });
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(true);
  });

  it('a new send replaces the previous code', async () => {
    const phone = freshPhone();
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const first = lastCode(h.sms, phone);
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const second = lastCode(h.sms, phone);
    if (first !== second) expect((await post('/api/v1/users/check/sms', { phone_num: phone, code: first })).body.data).toBe(false);
    expect((await post('/api/v1/users/check/sms', { phone_num: phone, code: second })).body.data).toBe(true);
  });

  it('limits sends to 5 per 10 minutes per phone (429 C0004), then allows again', async () => {
    const phone = freshPhone();
    for (let i = 0; i < 5; i++) await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const limited = await post('/api/v1/users/send/sms', { phone_num: phone });
    expectError(limited, 429, 'C0004', '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.');
    expect(h.sms.sent.filter((m) => m.to === phone)).toHaveLength(5);
    await post('/api/v1/users/send/sms', { phone_num: freshPhone() }).expect(200);
    h.clockAt(10 * 60_000 + 1);
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
  });

  it('limits sends to 10 per day per phone besides the 10-minute limit (429 C0004), then allows again after 24 hours', async () => {
    const phone = freshPhone();
    for (let i = 0; i < 10; i++) {
      // Two sends per 11-minute step keep the 10-minute limit out of the way.
      h.clockAt(Math.floor(i / 2) * 11 * 60_000);
      await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    }
    h.clockAt(5 * 11 * 60_000);
    expectError(await post('/api/v1/users/send/sms', { phone_num: phone }), 429, 'C0004');
    h.clockAt(23 * 60 * 60_000);
    expectError(await post('/api/v1/users/send/sms', { phone_num: phone }), 429, 'C0004');
    expect(h.sms.sent.filter((m) => m.to === phone)).toHaveLength(10);
    await post('/api/v1/users/send/sms', { phone_num: freshPhone() }).expect(200);
    // 24 hours after the first two sends their two slots are free again.
    h.clockAt(24 * 60 * 60_000 + 1);
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    expectError(await post('/api/v1/users/send/sms', { phone_num: phone }), 429, 'C0004');
  });

  it('never lets concurrent sends overshoot the daily limit', async () => {
    const phone = freshPhone();
    for (let i = 0; i < 4; i++) {
      h.clockAt(i * 11 * 60_000);
      await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
      await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    }
    h.clockAt(4 * 11 * 60_000);
    const results = await Promise.all(Array.from({ length: 5 }, () => post('/api/v1/users/send/sms', { phone_num: phone })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429]);
  });

  it('never lets concurrent sends overshoot the limit', async () => {
    const phone = freshPhone();
    const results = await Promise.all(Array.from({ length: 8 }, () => post('/api/v1/users/send/sms', { phone_num: phone })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(3);
  });

  it('answers U0000 for a registered phone and sends nothing', async () => {
    const user = await signUp(h.app);
    const sentBefore = h.sms.sent.length;
    expectError(await post('/api/v1/users/send/sms', { phone_num: user.phone_num }), 400, 'U0000', '이미 가입된 전화번호입니다.');
    expect(h.sms.sent.length).toBe(sentBefore);
  });

  it('uses the spec format messages for phone and code', async () => {
    expectError(await post('/api/v1/users/send/sms', { phone_num: '12345' }), 400, 'C0002', FormatMessages.phone);
    expectError(await post('/api/v1/users/send/sms', { phone_num: HUGE }), 400, 'C0002', FormatMessages.phone);
    expectError(await post('/api/v1/users/check/sms', { phone_num: '0101234', code: '123456' }), 400, 'C0002', FormatMessages.phone);
    expectError(await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code: '12a456' }), 400, 'C0002', FormatMessages.code);
    expectError(await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code: '12345' }), 400, 'C0002', FormatMessages.code);
    expectError(await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code: '1234' }), 400, 'C0002', FormatMessages.code);
    expectError(await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code: '1234567' }), 400, 'C0002', FormatMessages.code);
    expectError(await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code: 123456 }), 400, 'C0002');
    expectError(await post('/api/v1/users/check/sms', { phone_num: freshPhone(), code: '123456', x: 1 }), 400, 'C0002');
  });
});

describe('e-mail codes', () => {
  it('sends a code by mail that checks true once', async () => {
    const email = freshEmail();
    await post('/api/v1/users/send/email', { email }).expect(200);
    const message = h.mail.lastTo(email);
    expect(message?.subject).toBeTruthy();
    const code = lastCode(h.mail, email);
    expect((await post('/api/v1/users/check/email', { email, code })).body.data).toBe(true);
    expect((await post('/api/v1/users/check/email', { email, code })).body.data).toBe(false);
  });

  it('answers false after expiry and after 5 wrong checks', async () => {
    const email = freshEmail();
    await post('/api/v1/users/send/email', { email }).expect(200);
    const code = lastCode(h.mail, email);
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 0; i < 5; i++) await post('/api/v1/users/check/email', { email, code: wrong });
    expect((await post('/api/v1/users/check/email', { email, code })).body.data).toBe(false);

    const other = freshEmail();
    await post('/api/v1/users/send/email', { email: other }).expect(200);
    h.clockAt(3 * 60_000 + 1);
    expect((await post('/api/v1/users/check/email', { email: other, code: lastCode(h.mail, other) })).body.data).toBe(false);
  });

  it('answers U0010 for a registered e-mail', async () => {
    const user = await signUp(h.app);
    expectError(await post('/api/v1/users/send/email', { email: user.email }), 400, 'U0010', '이미 가입된 이메일입니다.');
  });

  it('answers HTTP 500 with the C0000 envelope when the mail cannot be sent', async () => {
    mailFails = true;
    const res = await post('/api/v1/users/send/email', { email: freshEmail() });
    expectError(res, 500, 'C0000', '예기치 못한 오류가 발생했습니다.');
    expect(JSON.stringify(res.body)).not.toContain('SMTP');
  });

  it('rate-limits e-mail sends per address: 5 per 10 minutes and 10 per day', async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++) await post('/api/v1/users/send/email', { email }).expect(200);
    expectError(await post('/api/v1/users/send/email', { email }), 429, 'C0004');
    h.clockAt(11 * 60_000);
    for (let i = 0; i < 5; i++) await post('/api/v1/users/send/email', { email }).expect(200);
    h.clockAt(22 * 60_000);
    expectError(await post('/api/v1/users/send/email', { email }), 429, 'C0004');
  });

  it('answers C0002 for bad addresses and codes', async () => {
    expectError(await post('/api/v1/users/send/email', { email: 'nope' }), 400, 'C0002', '이메일 값이 올바르지 않습니다.');
    expectError(await post('/api/v1/users/send/email', { email: `${HUGE}@x.co` }), 400, 'C0002');
    expectError(await post('/api/v1/users/send/email', {}), 400, 'C0002', '이메일 값이 누락되었습니다.');
    expectError(await post('/api/v1/users/check/email', { email: freshEmail(), code: 'abcd' }), 400, 'C0002', FormatMessages.code);
    expectError(await request(h.app).post('/api/v1/users/check/email').set('Content-Type', 'application/json').send('{"email":'), 400, 'C0002');
  });
});

describe('update/phone and update/email need a fresh verification', () => {
  it('update/phone: U0011 without a check, success after one, and the mark is used up', async () => {
    const { bearer } = await signedIn(h.app);
    const phone = freshPhone();
    expectError(
      await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: phone }),
      400,
      'U0011',
      '인증이 완료되지 않았습니다.',
    );
    await post('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    await post('/api/v1/users/check/sms', { phone_num: phone, code: lastCode(h.sms, phone) }).expect(200);
    await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: phone }).expect(200);
    expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.phone_num).toBe(phone);

    const next = freshPhone();
    await post('/api/v1/users/send/sms', { phone_num: next }).expect(200);
    await post('/api/v1/users/check/sms', { phone_num: next, code: lastCode(h.sms, next) }).expect(200);
    h.clockAt(30 * 60_000 + 1);
    expectError(await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: next }), 400, 'U0011');
  });

  it('update/phone: U0000 when another account has the phone; C0002 for its format; J0000 without token', async () => {
    const { bearer } = await signedIn(h.app);
    const other = await signUp(h.app);
    expectError(await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: other.phone_num }), 400, 'U0000');
    expectError(
      await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: '02-123' }),
      400,
      'C0002',
      FormatMessages.phone,
    );
    expectError(await request(h.app).put('/api/v1/users/update/phone').send({ phone_num: freshPhone() }), 401, 'J0000');
  });

  it('update/email: U0011 without a check, U0010 for a taken address, success after a check', async () => {
    const { bearer } = await signedIn(h.app);
    const email = freshEmail();
    expectError(await request(h.app).put('/api/v1/users/update/email').set('Authorization', bearer).send({ email }), 400, 'U0011');
    const other = await signUp(h.app, userBody());
    expectError(await request(h.app).put('/api/v1/users/update/email').set('Authorization', bearer).send({ email: other.email }), 400, 'U0010');
    await post('/api/v1/users/send/email', { email }).expect(200);
    await post('/api/v1/users/check/email', { email, code: lastCode(h.mail, email) }).expect(200);
    await request(h.app).put('/api/v1/users/update/email').set('Authorization', bearer).send({ email }).expect(200);
    expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.email).toBe(email);
    expectError(await request(h.app).put('/api/v1/users/update/email').set('Authorization', bearer).send({ email: 5 }), 400, 'C0002');
  });
});

describe('audit: e-mail addresses are case-insensitive, own values are a no-op', () => {
  it('treats a case variant of a registered e-mail as registered (send/email, sign-up, update/email)', async () => {
    const user = await signUp(h.app);
    const shouted = String(user.email).toUpperCase();
    expectError(await post('/api/v1/users/send/email', { email: shouted }), 400, 'U0010');
    expectError(await post('/api/v1/users/sign-up', userBody({ email: shouted })), 400, 'U0010');
    const { bearer } = await signedIn(h.app);
    expectError(await request(h.app).put('/api/v1/users/update/email').set('Authorization', bearer).send({ email: shouted }), 400, 'U0010');
    expect(await h.ctx.models.users.countDocuments({ email: { $in: [user.email, shouted] } })).toBe(1);
  });

  it('stores and verifies e-mail in lower case, so one code serves any spelling of the address', async () => {
    const lower = freshEmail();
    const mixed = lower.replace(/^v/, 'V').replace('example', 'Example');
    await post('/api/v1/users/send/email', { email: mixed }).expect(200);
    expect((await post('/api/v1/users/check/email', { email: lower, code: lastCode(h.mail, lower) })).body.data).toBe(true);
    const body = userBody({ email: mixed });
    await signUp(h.app, body);
    expect((await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec())?.email).toBe(lower);
  });

  it('update/phone and update/email to the own current value succeed as a no-op (no U0011)', async () => {
    const { bearer, body } = await signedIn(h.app);
    await request(h.app).put('/api/v1/users/update/phone').set('Authorization', bearer).send({ phone_num: body.phone_num }).expect(200);
    await request(h.app).put('/api/v1/users/update/email').set('Authorization', bearer).send({ email: body.email }).expect(200);
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(stored).toMatchObject({ phoneNum: body.phone_num, email: body.email, version: 1 });
  });
});

describe('VERIFICATION_CODE_DIGITS=4 (what the original site’s clients accept)', () => {
  let four: AccountsHarness;
  beforeAll(async () => {
    four = await startAccountsHarness('acctverify4', { codeDigits: 4 });
  });
  afterAll(async () => four.close());
  const postFour = (path: string, body: object) => request(four.app).post(path).send(body);

  it('sends 4-digit codes by SMS and e-mail that check true once; other lengths are the code format error', async () => {
    const phone = freshPhone();
    await postFour('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const code = lastCode(four.sms, phone);
    expect(four.sms.lastTo(phone)?.text).toMatch(/인증번호는 \d{4} 입니다/);
    expect(code).toMatch(/^\d{4}$/);
    expectError(await postFour('/api/v1/users/check/sms', { phone_num: phone, code: `${code}00` }), 400, 'C0002', FormatMessages.code);
    expect((await postFour('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(true);
    expect((await postFour('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(false);

    const email = freshEmail();
    await postFour('/api/v1/users/send/email', { email }).expect(200);
    const mailed = lastCode(four.mail, email);
    expect(mailed).toMatch(/^\d{4}$/);
    expect((await postFour('/api/v1/users/check/email', { email, code: mailed })).body.data).toBe(true);
  });

  it('keeps the guess limit: 5 wrong checks void a 4-digit code', async () => {
    const phone = freshPhone();
    await postFour('/api/v1/users/send/sms', { phone_num: phone }).expect(200);
    const code = lastCode(four.sms, phone);
    const wrong = code === '1111' ? '2222' : '1111';
    for (let i = 0; i < 5; i++) expect((await postFour('/api/v1/users/check/sms', { phone_num: phone, code: wrong })).body.data).toBe(false);
    expect((await postFour('/api/v1/users/check/sms', { phone_num: phone, code })).body.data).toBe(false);
  });
});
