import { FormatMessages } from '@binzip/shared';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { fieldLabels } from '../src/routes/schemas';
import { HUGE, agentBody, lastCode, signUp, signedIn, startAccountsHarness, userBody, verifyContacts, type AccountsHarness } from './helpers';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctsignup');
});
afterAll(async () => h.close());

const post = (path: string) => request(h.app).post(path);

describe('POST /api/v1/users/sign-up', () => {
  it('creates a general user (USER/NONE) with coded labels and a hashed password', async () => {
    const body = userBody({ age: '20대 미만', join_paths: ['네이버 카페', '기타', '기타'] });
    await verifyContacts(h.app, body);
    const res = await post('/api/v1/users/sign-up').send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공' });
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(stored).toMatchObject({ authority: 'USER', userType: 'NONE', status: 'ACTIVE', age: 'TEN', joinPaths: ['NAVER_CAFE', 'ETC'], version: 1 });
    expect(stored?.passwordHash).toMatch(/^\$2[aby]\$04\$/);
    expect(stored?.passwordHash).not.toContain(String(body.password));
  });

  it('answers U0009 when the mandatory term is missing', async () => {
    const res = await post('/api/v1/users/sign-up').send(userBody({ terms: ['PERSONAL_INFO_NOTI', 'MARKETING_ADVERTISEMENT_AGREE'] }));
    expectError(res, 400, 'U0009', '필수 약관에 미동의하셨습니다.');
  });

  it.each([
    ['password', 'short1!', FormatMessages.password],
    ['password', 'NoDigits!!', FormatMessages.password],
    ['password', 'nospecial12', FormatMessages.password],
    ['password', 'Passw0rd!' + 'x'.repeat(10), FormatMessages.password],
    ['password', HUGE, FormatMessages.password],
    ['nick_name', '닉 네임', FormatMessages.nickName],
    ['nick_name', '', FormatMessages.nickName],
    ['nick_name', '가'.repeat(21), FormatMessages.nickName],
    ['phone_num', '010-1234-567a', FormatMessages.phone],
    ['phone_num', '0201234567', FormatMessages.phone],
    ['phone_num', HUGE, FormatMessages.phone],
    ['userName', 'abc', '아이디 값이 올바르지 않습니다.'],
    ['userName', '12345', '아이디 값이 올바르지 않습니다.'],
    ['userName', HUGE, '아이디 값이 올바르지 않습니다.'],
    ['email', 'not-an-email', '이메일 값이 올바르지 않습니다.'],
    ['email', `${HUGE}@example.com`, '이메일 값이 올바르지 않습니다.'],
    ['age', 'THIRTY', '연령대 값이 올바르지 않습니다.'],
    ['join_paths', ['유튜브'], '가입 경로 값이 올바르지 않습니다.'],
    ['terms', ['SERVICE_USED_AGREE', 'NOPE'], '약관 동의 값이 올바르지 않습니다.'],
    ['terms', 'SERVICE_USED_AGREE', '약관 동의 값이 올바르지 않습니다.'],
    ['userName', 12345, '아이디 값이 올바르지 않습니다.'],
  ])('answers C0002 for %s = %#', async (field, value, message) => {
    const res = await post('/api/v1/users/sign-up').send(userBody({ [field]: value }));
    expectError(res, 400, 'C0002', message);
  });

  it('answers C0002 naming a missing field and an unknown field', async () => {
    const body = userBody();
    delete body.email;
    expectError(await post('/api/v1/users/sign-up').send(body), 400, 'C0002', '이메일 값이 누락되었습니다.');
    expectError(await post('/api/v1/users/sign-up').send(userBody({ authority: 'ADMIN' })), 400, 'C0002', 'authority 필드는 허용되지 않습니다.');
  });

  it('answers C0002 for malformed JSON, a non-object body and a body that is not JSON', async () => {
    expectError(await post('/api/v1/users/sign-up').set('Content-Type', 'application/json').send('{"userName": "x",'), 400, 'C0002');
    expectError(await post('/api/v1/users/sign-up').set('Content-Type', 'application/json').send('[1,2]'), 400, 'C0002');
    expectError(await post('/api/v1/users/sign-up').set('Content-Type', 'application/json').send('"text"'), 400, 'C0002');
    expectError(await post('/api/v1/users/sign-up').set('Content-Type', 'text/plain').send('hello'), 400, 'C0002');
  });

  it('checks duplicates in the order userName U0007, nick_name U0005, phone U0000, e-mail U0010', async () => {
    const first = await signUp(h.app);
    const all = userBody({ userName: first.userName, nick_name: first.nick_name, phone_num: first.phone_num, email: first.email });
    expectError(await post('/api/v1/users/sign-up').send(all), 400, 'U0007', '이미 가입된 아이디입니다.');
    expectError(await post('/api/v1/users/sign-up').send({ ...all, userName: userBody().userName }), 400, 'U0005', '이미 존재하는 닉네임입니다.');
    const fresh = userBody();
    expectError(
      await post('/api/v1/users/sign-up').send({ ...all, userName: fresh.userName, nick_name: fresh.nick_name }),
      400,
      'U0000',
      '이미 가입된 전화번호입니다.',
    );
    expectError(
      await post('/api/v1/users/sign-up').send({ ...all, userName: fresh.userName, nick_name: fresh.nick_name, phone_num: fresh.phone_num }),
      400,
      'U0010',
      '이미 가입된 이메일입니다.',
    );
    expect(await h.ctx.models.users.countDocuments({ email: first.email })).toBe(1);
  });

  it('lets exactly one of two simultaneous sign-ups with the same userName through', async () => {
    const a = userBody();
    const b = userBody({ userName: a.userName });
    await verifyContacts(h.app, a);
    await verifyContacts(h.app, b);
    const results = await Promise.all([post('/api/v1/users/sign-up').send(a), post('/api/v1/users/sign-up').send(b)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(results.find((r) => r.status === 400)?.body.code).toBe('U0007');
    expect(await h.ctx.models.users.countDocuments({ userName: a.userName })).toBe(1);
  });
});

describe('sign-up needs the contacts verified (issue 19 item 4)', () => {
  const checkCode = async (channel: 'sms' | 'email', field: string, target: string) => {
    await post(`/api/v1/users/send/${channel}`)
      .send({ [field]: target })
      .expect(200);
    const code = lastCode(channel === 'sms' ? h.sms : h.mail, target);
    expect((await post(`/api/v1/users/check/${channel}`).send({ [field]: target, code })).body.data).toBe(true);
  };

  it('answers U0011 without any check, with only the phone checked, and with only the e-mail checked; nothing is stored', async () => {
    const body = userBody();
    expectError(await post('/api/v1/users/sign-up').send(body), 400, 'U0011', '인증이 완료되지 않았습니다.');
    await checkCode('sms', 'phone_num', String(body.phone_num));
    expectError(await post('/api/v1/users/sign-up').send(body), 400, 'U0011');
    const other = userBody();
    await checkCode('email', 'email', String(other.email));
    expectError(await post('/api/v1/users/sign-up').send(other), 400, 'U0011');
    expect(await h.ctx.models.users.countDocuments({ userName: { $in: [body.userName, other.userName] } })).toBe(0);
    await checkCode('email', 'email', String(body.email));
    expect((await post('/api/v1/users/sign-up').send(body)).status).toBe(200);
  });

  it('a code sent but not checked, or checked wrong, is no verification', async () => {
    const body = userBody();
    await post('/api/v1/users/send/sms').send({ phone_num: body.phone_num }).expect(200);
    const code = lastCode(h.sms, String(body.phone_num));
    await post('/api/v1/users/check/sms').send({ phone_num: body.phone_num, code: code === '000000' ? '000001' : '000000' });
    await checkCode('email', 'email', String(body.email));
    expectError(await post('/api/v1/users/sign-up').send(body), 400, 'U0011');
  });

  it('a verification lasts 30 minutes and proves one sign-up', async () => {
    const late = userBody();
    await verifyContacts(h.app, late);
    h.clockAt(30 * 60_000 + 1_000);
    try {
      expectError(await post('/api/v1/users/sign-up').send(late), 400, 'U0011');
    } finally {
      h.clockAt(0);
    }
    const once = userBody();
    await verifyContacts(h.app, once);
    expect((await post('/api/v1/users/sign-up').send(once)).status).toBe(200);
    // The same phone and e-mail, free again only in a test's imagination: the proof is spent either way.
    const verifications = await h.ctx.models.verifications
      .find({ _id: { $in: [`sms:${String(once.phone_num)}`, `email:${String(once.email)}`] } })
      .lean()
      .exec();
    expect(verifications.map((v) => v.verifiedUntil ?? null)).toEqual([null, null]);
  });

  it('keeps the order: format C0002, terms U0009 and duplicates come before U0011', async () => {
    const taken = await signUp(h.app);
    expectError(await post('/api/v1/users/sign-up').send(userBody({ phone_num: '010-1' })), 400, 'C0002', FormatMessages.phone);
    expectError(await post('/api/v1/users/sign-up').send(userBody({ terms: ['PERSONAL_INFO_NOTI'] })), 400, 'U0009');
    expectError(await post('/api/v1/users/sign-up').send(userBody({ userName: taken.userName })), 400, 'U0007');
    expectError(await post('/api/v1/users/sign-up').send(userBody({ phone_num: taken.phone_num })), 400, 'U0000');
    expectError(await post('/api/v1/users/sign-up').send(userBody({ email: taken.email })), 400, 'U0010');
  });

  it('someone else’s phone: sign-up without its code is refused, so its owner can still verify and sign up', async () => {
    const owner = userBody();
    const squatter = userBody({ phone_num: owner.phone_num });
    await checkCode('email', 'email', String(squatter.email));
    expectError(await post('/api/v1/users/sign-up').send(squatter), 400, 'U0011');
    await signUp(h.app, owner);
  });

  it('an agent needs its phone verified (its e-mail is company_email, not checked by the original client)', async () => {
    const body = agentBody();
    expectError(await post('/api/v1/agents/sign-up').send(body), 400, 'U0011');
    await checkCode('sms', 'phone_num', String(body.phone_num));
    expect((await post('/api/v1/agents/sign-up').send(body)).status).toBe(200);
  });
});

describe('POST /api/v1/agents/sign-up', () => {
  it('creates an agent (USER/AGENT) whose profile carries the office fields', async () => {
    const body = agentBody({ assistant_name: '이보조' });
    await verifyContacts(h.app, body);
    expect((await post('/api/v1/agents/sign-up').send(body)).status).toBe(200);
    const { bearer } = await signedIn(h.app, body);
    const res = await request(h.app).get('/api/v1/users').set('Authorization', bearer);
    expect(res.body.data).toMatchObject({
      userType: 'AGENT',
      authority: 'USER',
      agentCode: '1234567890',
      companyName: '빈집 공인중개사사무소',
      companyAddress: '서울특별시 중구 세종대로 110 3층',
      companyPhoneNum: '0212345678',
      agentName: '김대표',
      assistantName: '이보조',
    });
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(stored?.agent).toMatchObject({ businessCode: '12345678901234', estate: 'HOUSE', companyEmail: body.company_email });
  });

  it('takes the contract body (no email): company_email is the agent’s e-mail in the profile and for uniqueness', async () => {
    const body = agentBody();
    expect(body).not.toHaveProperty('email');
    await verifyContacts(h.app, body);
    expect((await post('/api/v1/agents/sign-up').send(body)).status).toBe(200);
    const { bearer } = await signedIn(h.app, body);
    expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).body.data.email).toBe(body.company_email);
    expectError(await post('/api/v1/users/sign-up').send(userBody({ email: body.company_email })), 400, 'U0010');
    expectError(await post('/api/v1/agents/sign-up').send(agentBody({ company_email: body.company_email })), 400, 'U0010');
    expectError(await post('/api/v1/users/send/email').send({ email: body.company_email }), 400, 'U0010');
    // The member's `email` is not part of the agent body: an unknown field, like any other.
    expectError(await post('/api/v1/agents/sign-up').send(agentBody({ email: 'someone@example.com' })), 400, 'C0002');
  });

  it('accepts the codes the other way round and a missing assistant_name', async () => {
    const body = agentBody({ agent_code: '12345678901234', business_code: '1234567890' });
    delete body.assistant_name;
    await verifyContacts(h.app, body);
    expect((await post('/api/v1/agents/sign-up').send(body)).status).toBe(200);
  });

  it('needs both mandatory agent terms (U0009)', async () => {
    expectError(await post('/api/v1/agents/sign-up').send(agentBody({ terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_USED_AGREE'] })), 400, 'U0009');
  });

  it.each([
    ['agent_code', '12345678901234', 'business_code'],
    ['agent_code', '123456789', 'agent_code'],
    ['agent_code', '12345-67890', 'agent_code'],
    ['business_code', HUGE, 'business_code'],
    ['company_phone_num', '02-1234-567o', 'company_phone_num'],
    ['estate', '빌라', 'estate'],
    ['company_email', 'office', 'company_email'],
    ['company_name', '', 'company_name'],
    ['company_name', HUGE, 'company_name'],
    ['assistant_name', 5, 'assistant_name'],
  ])('answers C0002 for %s (case %#) naming the field', async (field, value, named) => {
    const res = await post('/api/v1/agents/sign-up').send(agentBody({ [field]: value }));
    expectError(res, 400, 'C0002', `${fieldLabels[named]} 값이 올바르지 않습니다.`);
  });

  it('keeps the spec format messages for agents too', async () => {
    expectError(await post('/api/v1/agents/sign-up').send(agentBody({ password: 'weak' })), 400, 'C0002', FormatMessages.password);
  });
});

describe('availability checks', () => {
  it('check/user-name: true when free, false when taken, C0002 for a bad format', async () => {
    const user = await signUp(h.app);
    expect((await post('/api/v1/users/check/user-name').send({ userName: user.userName })).body).toEqual({ code: 'SUCCESS', message: '성공', data: false });
    expect((await post('/api/v1/users/check/user-name').send({ userName: 'free_name_1' })).body.data).toBe(true);
    expectError(await post('/api/v1/users/check/user-name').send({ userName: 'a!' }), 400, 'C0002');
    expectError(await post('/api/v1/users/check/user-name').send({ userName: HUGE }), 400, 'C0002');
    expectError(await post('/api/v1/users/check/user-name').send({}), 400, 'C0002', '아이디 값이 누락되었습니다.');
  });

  it('check/nick-name: true when free, false when taken, the nickname format message otherwise', async () => {
    const user = await signUp(h.app);
    expect((await post('/api/v1/users/check/nick-name').send({ nick_name: user.nick_name })).body.data).toBe(false);
    expect((await post('/api/v1/users/check/nick-name').send({ nick_name: '새닉네임' })).body.data).toBe(true);
    expectError(await post('/api/v1/users/check/nick-name').send({ nick_name: 'bad name!' }), 400, 'C0002', FormatMessages.nickName);
    expectError(await post('/api/v1/users/check/nick-name').send({ nick_name: ['x'] }), 400, 'C0002');
    expectError(await post('/api/v1/users/check/nick-name').send({ nick_name: 'ok', extra: 1 }), 400, 'C0002', 'extra 필드는 허용되지 않습니다.');
  });
});

describe('routing', () => {
  it('answers unknown routes with 404 C0001', async () => {
    expectError(await request(h.app).get('/api/v1/users/nothing-here'), 404, 'C0001');
    expectError(await request(h.app).delete('/api/v1/users'), 404, 'C0001');
  });
});
