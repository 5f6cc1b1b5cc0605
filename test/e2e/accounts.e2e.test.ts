/**
 * Accounts end to end: the built gateway and accounts processes (run `npx tsc -b` first) against the real
 * stores. Verification codes are read from the accounts process's DEV_OUTBOX_DIR, as a developer would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../support';
import { codeSentTo as codeSentToOutbox, startE2eSystem, type ApiOptions, type E2eSystem } from '../support/e2e';

const outboxDir = mkdtempSync(path.join(os.tmpdir(), 'accounts-e2e-'));
let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('acce2e', { services: ['accounts'], env: { BCRYPT_COST: '4', DEV_OUTBOX_DIR: outboxDir, LOG_LEVEL: 'warn' } });
}, 90_000);

afterAll(async () => {
  await e2e?.stop();
  rmSync(outboxDir, { recursive: true, force: true });
});

// Bodies are read field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseData = any;

const call = async (method: string, route: string, options?: ApiOptions) => {
  const res = await e2e.api<LooseData>(method, route, options);
  return { status: res.status, body: res.body, cookies: res.headers.getSetCookie() };
};

const refreshOf = (cookies: string[]): string => {
  const line = cookies.find((c) => c.startsWith('RefreshToken='));
  if (!line) throw new Error(`no refresh cookie in ${JSON.stringify(cookies)}`);
  return line.slice('RefreshToken='.length).split(';')[0] ?? '';
};

const codeSentTo = (to: string): string | undefined => codeSentToOutbox(outboxDir, to);

it('signs up, verifies a phone, signs in, reissues with the cookie, reads the profile and logs out through the gateway', async () => {
  const phone = '01077778888';
  expect((await call('POST', '/api/v1/users/send/sms', { body: { phone_num: phone } })).body).toEqual({ code: 'SUCCESS', message: '성공' });
  const code = await eventually(() => codeSentTo(phone));
  expect((await call('POST', '/api/v1/users/check/sms', { body: { phone_num: phone, code } })).body.data).toBe(true);
  await e2e.verifyContacts({ phone_num: phone, email: 'e2e@example.com' });

  const signUp = await call('POST', '/api/v1/users/sign-up', {
    body: {
      userName: 'e2e_user',
      password: 'Passw0rd!',
      nick_name: '이투이',
      phone_num: phone,
      age: '20대',
      join_paths: ['검색'],
      terms: ['SERVICE_USED_AGREE'],
      email: 'e2e@example.com',
    },
  });
  expect(signUp).toMatchObject({ status: 200, body: { code: 'SUCCESS', message: '성공' } });
  expect((await call('POST', '/api/v1/users/check/user-name', { body: { userName: 'e2e_user' } })).body.data).toBe(false);

  const wrong = await call('POST', '/api/v1/users/sign-in', { body: { userName: 'e2e_user', password: 'Wrong0pw!' } });
  expect(wrong).toMatchObject({ status: 400, body: { code: 'U0002' } });

  const signIn = await call('POST', '/api/v1/users/sign-in', { body: { userName: 'e2e_user', password: 'Passw0rd!' } });
  expect(signIn.status).toBe(200);
  expect(signIn.body.data.access_token).toMatch(/^Bearer /);
  expect(signIn.cookies).toEqual([expect.stringMatching(/^RefreshToken=[\w-]+; Path=\/; Max-Age=604800; Secure; HttpOnly; SameSite=None$/)]);
  const refresh = refreshOf(signIn.cookies);

  const reissued = await call('POST', '/api/v1/users/reissue', {
    body: { access_token: signIn.body.data.access_token },
    headers: { Cookie: `RefreshToken=${refresh}` },
  });
  expect(reissued.status).toBe(200);
  const bearer = reissued.body.data.access_token as string;
  const rotated = refreshOf(reissued.cookies);
  expect(rotated).not.toBe(refresh);

  const profile = await call('GET', '/api/v1/users', { token: bearer });
  expect(profile.status).toBe(200);
  expect(profile.body.data).toMatchObject({
    userName: 'e2e_user',
    nick_name: '이투이',
    phone_num: phone,
    age: 'TWENTY',
    authority: 'USER',
    userType: 'NONE',
    suspenseReason: null,
  });
  expect(typeof profile.body.data.profile_image_url).toBe('string');

  const noToken = await call('GET', '/api/v1/users');
  expect(noToken).toMatchObject({ status: 401, body: { code: 'J0000' } });

  const logout = await call('POST', '/api/v1/users/logout', { token: bearer, headers: { Cookie: `RefreshToken=${rotated}` } });
  expect(logout.status).toBe(200);
  expect(logout.cookies).toEqual(['RefreshToken=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=None']);
  const afterLogout = await call('POST', '/api/v1/users/reissue', { body: { access_token: bearer }, headers: { Cookie: `RefreshToken=${rotated}` } });
  expect(afterLogout).toMatchObject({ status: 401, body: { code: 'J0004' } });
}, 60_000);

it('answers bad input through the gateway with a 4xx envelope', async () => {
  const malformed = await e2e.api('POST', '/api/v1/users/sign-up', { rawBody: '{"userName":', headers: { 'Content-Type': 'application/json' } });
  expect(malformed.status).toBe(400);
  expect(malformed.body).toMatchObject({ code: 'C0002' });
  const huge = await call('POST', '/api/v1/users/check/nick-name', { body: { nick_name: 'a'.repeat(100_000) } });
  expect(huge.status).toBeGreaterThanOrEqual(400);
  expect(huge.status).toBeLessThan(500);
  expect(huge.body.code).toBe('C0002');
});
