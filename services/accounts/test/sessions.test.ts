import { createHash } from 'node:crypto';
import { generateDevKeyPair, signAccessToken, verifyAccessJwt } from '@binzip/shared';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { bearer as testBearer, testEnv, expectError } from '../../../test/support';
import { HUGE, refreshCookieValue, signUp, signedIn, startAccountsHarness, userBody, type AccountsHarness } from './helpers';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctsessions', { defaultProfileImageUrl: 'https://img.example.com/default.png' });
});
afterAll(async () => h.close());

const COOKIE_ATTRIBUTES = 'Path=/; Max-Age=604800; Secure; HttpOnly; SameSite=None';
const cookieLines = (res: request.Response): string[] => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const reissue = (refresh: string | undefined, accessToken: unknown) => {
  const req = request(h.app).post('/api/v1/users/reissue');
  if (refresh !== undefined) req.set('Cookie', `RefreshToken=${refresh}`);
  return req.send({ access_token: accessToken });
};

describe('POST /api/v1/users/sign-in', () => {
  it('returns a Bearer access token with the user claims and sets the refresh cookie exactly as the spec says', async () => {
    const user = await signUp(h.app);
    const res = await request(h.app).post('/api/v1/users/sign-in').send({ userName: user.userName, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe('SUCCESS');
    expect(Object.keys(res.body.data)).toEqual(['access_token']);
    expect(res.body.data.access_token).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = verifyAccessJwt(res.body.data.access_token.slice(7), testEnv().publicKey);
    expect(claims).toMatchObject({ userName: user.userName, authority: 'USER', userType: 'NONE' });
    const [line, ...others] = cookieLines(res);
    expect(others).toEqual([]);
    expect(line).toMatch(new RegExp(`^RefreshToken=[\\w-]{43}; ${COOKIE_ATTRIBUTES.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(line).not.toMatch(/Expires/i);
    const refresh = refreshCookieValue(line);
    const stored = await h.ctx.models.refreshTokens.findById(createHash('sha256').update(refresh).digest('hex')).lean().exec();
    expect(stored?.userId).toBe(claims.userId);
    expect(await h.ctx.models.refreshTokens.exists({ _id: refresh })).toBeNull();
    const ttl = (stored!.expiresAt.getTime() - stored!.createdAt.getTime()) / 1000;
    expect(ttl).toBe(604800);
  });

  it('answers U0001 for an unknown user name and U0002 for a wrong password, without a cookie', async () => {
    const user = await signUp(h.app);
    const unknown = await request(h.app).post('/api/v1/users/sign-in').send({ userName: 'nobody_here', password: user.password });
    expectError(unknown, 400, 'U0001', '존재하지 않는 아이디입니다.');
    const wrong = await request(h.app).post('/api/v1/users/sign-in').send({ userName: user.userName, password: 'Wrong0pass!' });
    expectError(wrong, 400, 'U0002', '비밀번호가 일치하지 않습니다.');
    expect(cookieLines(wrong)).toEqual([]);
  });

  it('answers C0002 for missing, wrong-typed, unknown and huge fields', async () => {
    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: 'someone' }), 400, 'C0002', '비밀번호 값이 누락되었습니다.');
    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: 1, password: 'x' }), 400, 'C0002');
    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: 'a', password: 'b', remember: true }), 400, 'C0002');
    expectError(await request(h.app).post('/api/v1/users/sign-in').send({ userName: HUGE, password: HUGE }), 400, 'C0002');
    expectError(await request(h.app).post('/api/v1/users/sign-in').set('Content-Type', 'application/json').send('{bad'), 400, 'C0002');
  });

  it('lets a user who asked to withdraw still sign in', async () => {
    const { body, bearer } = await signedIn(h.app);
    await request(h.app)
      .post('/api/v1/users/withdrawal')
      .set('Authorization', bearer)
      .send({ reason: ['재가입'], content: '' })
      .expect(200);
    await request(h.app).post('/api/v1/users/sign-in').send({ userName: body.userName, password: body.password }).expect(200);
  });
});

describe('POST /api/v1/users/reissue', () => {
  it('rotates: a new access token and a new cookie; the old cookie more than 2 s later is reuse and revokes the family', async () => {
    const { bearer, refresh } = await signedIn(h.app);
    const first = await reissue(refresh, bearer);
    expect(first.status).toBe(200);
    expect(first.body.data.access_token).toMatch(/^Bearer /);
    const [line] = cookieLines(first);
    expect(line?.endsWith(`; ${COOKIE_ATTRIBUTES}`)).toBe(true);
    const second = refreshCookieValue(line);
    expect(second).not.toBe(refresh);

    // The rotated token comes back after the race window: someone else holds a copy. Both it and its
    // successor stop working.
    h.clockAt(2_001);
    try {
      expectError(await reissue(refresh, bearer), 401, 'J0004', 'JWT 토큰이 잘못되었습니다.');
      expectError(await reissue(second, first.body.data.access_token), 401, 'J0004');
    } finally {
      h.clockAt(0);
    }
  });

  it('chains rotations while each new cookie is used once', async () => {
    let { bearer, refresh } = await signedIn(h.app);
    for (let i = 0; i < 3; i++) {
      const res = await reissue(refresh, bearer);
      expect(res.status).toBe(200);
      bearer = res.body.data.access_token;
      refresh = refreshCookieValue(res.headers['set-cookie']);
    }
    const profile = await request(h.app).get('/api/v1/users').set('Authorization', bearer);
    expect(profile.status).toBe(200);
  });

  it('accepts the body token without the Bearer prefix, expired, and ignores an expired Authorization header', async () => {
    const { refresh, bearer } = await signedIn(h.app);
    const claims = verifyAccessJwt(bearer.slice(7), testEnv().publicKey);
    const expired = signAccessToken(claims, testEnv().privateKey, -60);
    const res = await request(h.app)
      .post('/api/v1/users/reissue')
      .set('Cookie', `RefreshToken=${refresh}`)
      .set('Authorization', `Bearer ${expired}`)
      .send({ access_token: expired });
    expect(res.status).toBe(200);
    expect(verifyAccessJwt(res.body.data.access_token.slice(7), testEnv().publicKey).userId).toBe(claims.userId);
  });

  it('answers J0004 for a missing, unknown or expired cookie', async () => {
    const { refresh, bearer } = await signedIn(h.app);
    expectError(await reissue(undefined, bearer), 401, 'J0004');
    expectError(await reissue('not-a-real-token', bearer), 401, 'J0004');
    // Node itself refuses headers over 16 KB (431); below that the service must still answer the envelope.
    expectError(await reissue('x'.repeat(8_000), bearer), 401, 'J0004');
    h.clockAt(604_800_000 + 1_000);
    try {
      expectError(await reissue(refresh, bearer), 401, 'J0004');
    } finally {
      h.clockAt(0);
    }
  });

  it('answers J0004 when the access token names another user or is forged, and leaves the cookie usable', async () => {
    const { refresh, bearer } = await signedIn(h.app);
    const other = await signedIn(h.app);
    expectError(await reissue(refresh, other.bearer), 401, 'J0004');
    const claims = verifyAccessJwt(bearer.slice(7), testEnv().publicKey);
    const forged = signAccessToken(claims, generateDevKeyPair().privateKey);
    expectError(await reissue(refresh, forged), 401, 'J0004');
    expectError(await reissue(refresh, 'garbage'), 401, 'J0004');
    expect((await reissue(refresh, bearer)).status).toBe(200);
  });

  it('answers C0002 when the body has no usable access_token', async () => {
    const { refresh } = await signedIn(h.app);
    expectError(await request(h.app).post('/api/v1/users/reissue').set('Cookie', `RefreshToken=${refresh}`).send({}), 400, 'C0002');
    expectError(await reissue(refresh, 42), 400, 'C0002');
    expectError(await reissue(refresh, HUGE), 400, 'C0002');
  });
});

describe('POST /api/v1/users/logout', () => {
  it('revokes the session and clears the cookie with Max-Age=0', async () => {
    const { refresh, bearer } = await signedIn(h.app);
    const res = await request(h.app).post('/api/v1/users/logout').set('Authorization', bearer).set('Cookie', `RefreshToken=${refresh}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect(cookieLines(res)).toEqual(['RefreshToken=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=None']);
    expectError(await reissue(refresh, bearer), 401, 'J0004');
  });

  it('needs a token (J0000), rejects a bad one, and does not revoke another user’s session', async () => {
    expectError(await request(h.app).post('/api/v1/users/logout'), 401, 'J0000', '권한 정보가 없는 토큰입니다.');
    expectError(await request(h.app).post('/api/v1/users/logout').set('Authorization', 'Token abc'), 401, 'J0004');
    const victim = await signedIn(h.app);
    const attacker = await signedIn(h.app);
    await request(h.app).post('/api/v1/users/logout').set('Authorization', attacker.bearer).set('Cookie', `RefreshToken=${victim.refresh}`).expect(200);
    expect((await reissue(victim.refresh, victim.bearer)).status).toBe(200);
  });

  it('with the bearer only (the original web client sends no cookie) ends the session: old cookie 401, old access token 401', async () => {
    const { refresh, bearer } = await signedIn(h.app);
    const sid = verifyAccessJwt(bearer.slice(7), testEnv().publicKey).sessionId;
    expect(sid).toEqual(expect.any(String));
    const other = await signedIn(h.app);
    expect((await request(h.app).get('/api/v1/users').set('Authorization', bearer)).status).toBe(200);
    const res = await request(h.app).post('/api/v1/users/logout').set('Authorization', bearer);
    expect(res.status).toBe(200);
    expectError(await reissue(refresh, bearer), 401, 'J0004');
    expectError(await request(h.app).get('/api/v1/users').set('Authorization', bearer), 401, 'J0004');
    // Another sign-in (another session) is untouched.
    expect((await request(h.app).get('/api/v1/users').set('Authorization', other.bearer)).status).toBe(200);
    expect((await reissue(other.refresh, other.bearer)).status).toBe(200);
  });

  it('the session id survives reissue: logging out with a reissued token ends the whole sign-in', async () => {
    const first = await signedIn(h.app);
    const rotated = await reissue(first.refresh, first.bearer);
    const bearer = rotated.body.data.access_token as string;
    const refresh = refreshCookieValue(rotated.headers['set-cookie']);
    const sidOf = (token: string) => verifyAccessJwt(token.slice(7), testEnv().publicKey).sessionId;
    expect(sidOf(bearer)).toBe(sidOf(first.bearer));
    await request(h.app).post('/api/v1/users/logout').set('Authorization', bearer).expect(200);
    expectError(await reissue(refresh, bearer), 401, 'J0004');
    expectError(await request(h.app).get('/api/v1/users').set('Authorization', first.bearer), 401, 'J0004');
  });
});

describe('GET /api/v1/users', () => {
  it('returns exactly the spec User object with the default profile image', async () => {
    const body = userBody({ age: '60대 이상' });
    const { bearer } = await signedIn(h.app, await signUp(h.app, body));
    const res = await request(h.app).get('/api/v1/users').set('Authorization', bearer);
    expect(res.status).toBe(200);
    const stored = await h.ctx.models.users.findOne({ userName: body.userName }).lean().exec();
    expect(res.body.data).toStrictEqual({
      id: stored!._id,
      userName: body.userName,
      nick_name: body.nick_name,
      phone_num: body.phone_num,
      authority: 'USER',
      age: 'SIXTY',
      profile_image_url: 'https://img.example.com/default.png',
      userType: 'NONE',
      email: body.email,
      suspenseReason: null,
      reportedAt: null,
      agentCode: null,
      companyName: null,
      companyAddress: null,
      companyPhoneNum: null,
      agentName: null,
      assistantName: null,
    });
  });

  it('answers J0000 without a token, J0002 for an expired one, J0001 for a forged one, C0001 for a vanished user', async () => {
    expectError(await request(h.app).get('/api/v1/users'), 401, 'J0000');
    expectError(
      await request(h.app)
        .get('/api/v1/users')
        .set('Authorization', testBearer({ userId: 1 }, -10)),
      401,
      'J0002',
    );
    const forged = `Bearer ${signAccessToken({ userId: 1, userName: 'x', authority: 'USER', userType: 'NONE' }, generateDevKeyPair().privateKey)}`;
    expectError(await request(h.app).get('/api/v1/users').set('Authorization', forged), 401, 'J0001');
    expectError(
      await request(h.app)
        .get('/api/v1/users')
        .set('Authorization', testBearer({ userId: 999_999 })),
      404,
      'C0001',
    );
  });

  it('answers 401 J0004 for a token signed with the real key but without an expiry, for reads, writes and reissue', async () => {
    const { body, refresh } = await signedIn(h.app);
    const me = await request(h.app).post('/api/v1/users/sign-in').send({ userName: body.userName, password: body.password });
    const userId = verifyAccessJwt(me.body.data.access_token.slice(7), testEnv().publicKey).userId;
    const forever = jwt.sign({ userName: body.userName, authority: 'USER', userType: 'NONE', typ: 'access' }, testEnv().privateKey, {
      algorithm: 'ES256',
      subject: String(userId),
    });
    expectError(await request(h.app).get('/api/v1/users').set('Authorization', `Bearer ${forever}`), 401, 'J0004');
    expectError(
      await request(h.app).put('/api/v1/users/update/nick-name').set('Authorization', `Bearer ${forever}`).send({ nick_name: '영원한토큰' }),
      401,
      'J0004',
    );
    expectError(await reissue(refresh, `Bearer ${forever}`), 401, 'J0004');
  });
});

describe('POST /api/v1/users/check/password', () => {
  it('answers true for the current password and false otherwise', async () => {
    const { bearer, body } = await signedIn(h.app);
    expect((await request(h.app).post('/api/v1/users/check/password').set('Authorization', bearer).send({ password: body.password })).body.data).toBe(true);
    expect((await request(h.app).post('/api/v1/users/check/password').set('Authorization', bearer).send({ password: 'Other0pw!' })).body.data).toBe(false);
    expect((await request(h.app).post('/api/v1/users/check/password').set('Authorization', bearer).send({ password: '' })).body.data).toBe(false);
  });

  it('needs a token and a bounded string', async () => {
    const { bearer } = await signedIn(h.app);
    expectError(await request(h.app).post('/api/v1/users/check/password').send({ password: 'x' }), 401, 'J0000');
    expectError(await request(h.app).post('/api/v1/users/check/password').set('Authorization', bearer).send({ password: HUGE }), 400, 'C0002');
    expectError(await request(h.app).post('/api/v1/users/check/password').set('Authorization', bearer).send({ password: true }), 400, 'C0002');
  });
});

describe('audit: NoSQL operators and prototype keys never reach a query', () => {
  it.each([
    ['/api/v1/users/sign-in', { userName: { $gt: '' }, password: { $gt: '' } }],
    ['/api/v1/users/sign-in', { userName: { $ne: null }, password: 'Passw0rd!' }],
    ['/api/v1/users/sign-in', { userName: ['a'], password: ['b'] }],
    ['/api/v1/users/check/user-name', { userName: { $ne: null } }],
    ['/api/v1/users/check/nick-name', { nick_name: { $regex: '.*' } }],
    ['/api/v1/users/check/sms', { phone_num: '01012345678', code: { $gt: '' } }],
    ['/api/v1/users/check/email', { email: { $ne: 'x' }, code: '1234' }],
    ['/api/v1/users/send/sms', { phone_num: { $exists: true } }],
  ])('%s with %j is C0002 and signs nobody in', async (path, body) => {
    await signUp(h.app);
    const res = await request(h.app).post(path).send(body);
    expectError(res, 400, 'C0002');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it.each(['__proto__', 'constructor'])('rejects a %s key in the sign-in body', async (key) => {
    const user = await signUp(h.app);
    const raw = `{"userName":${JSON.stringify(user.userName)},"password":${JSON.stringify(user.password)},"${key}":{"prototype":{"x":1}}}`;
    const res = await request(h.app).post('/api/v1/users/sign-in').set('Content-Type', 'application/json').send(raw);
    expectError(res, 400, 'C0002', `${key} 필드는 허용되지 않습니다.`);
  });
});
