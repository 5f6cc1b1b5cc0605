/**
 * Sign-in's former login field `email` (issue 33): the original back office signs in with
 * `{"email": <login id>, "password": ...}`. Read as the login id when `userName` is absent, answered as usual
 * plus `Deprecation` and `Sunset`, and counted; both names at once is C0002 naming them.
 */
import { metricsRegistry } from '@binzip/shared';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { EMAIL_ALIAS_SUNSET } from '../src/routes/sign-in-alias';
import { signUp, startAccountsHarness, type AccountsHarness } from './helpers';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness('acctsigninalias');
});
afterAll(async () => h.close());

const signIn = (body: object) => request(h.app).post('/api/v1/users/sign-in').send(body);
const aliasCount = async (): Promise<number> => {
  const metric = await metricsRegistry.getSingleMetric('binzip_sign_in_email_alias_total')?.get();
  return metric?.values[0]?.value ?? 0;
};

test('the back office body signs in: the same answer and cookie, plus Deprecation and Sunset, counted once', async () => {
  const user = await signUp(h.app);
  const before = await aliasCount();
  const res = await signIn({ email: user.userName, password: user.password });
  expect(res.status).toBe(200);
  expect(res.body.code).toBe('SUCCESS');
  expect(Object.keys(res.body.data)).toEqual(['access_token']);
  expect(res.body.data.access_token).toMatch(/^Bearer /);
  expect(String(res.headers['set-cookie'])).toMatch(/^RefreshToken=/);
  expect(res.headers.deprecation).toMatch(/^@\d{10}$/);
  expect(res.headers.sunset).toBe(EMAIL_ALIAS_SUNSET.toUTCString());
  expect(new Date(res.headers.sunset).getTime()).toBeGreaterThan(Number(res.headers.deprecation.slice(1)) * 1000);
  expect(await aliasCount()).toBe(before + 1);
  // The access token works like any other.
  await request(h.app).get('/api/v1/users').set('Authorization', res.body.data.access_token).expect(200);
});

test('a sign-in with userName carries no deprecation and is not counted', async () => {
  const user = await signUp(h.app);
  const before = await aliasCount();
  const res = await signIn({ userName: user.userName, password: user.password });
  expect(res.status).toBe(200);
  expect(res.headers.deprecation).toBeUndefined();
  expect(res.headers.sunset).toBeUndefined();
  expect(await aliasCount()).toBe(before);
});

test('the alias keeps the sign-in rules: unknown id U0001, wrong password U0002, nothing counted', async () => {
  const user = await signUp(h.app);
  const before = await aliasCount();
  expectError(await signIn({ email: 'nobody_here', password: user.password }), 400, 'U0001');
  expectError(await signIn({ email: user.userName, password: 'Wrong0pass!' }), 400, 'U0002');
  expect(await aliasCount()).toBe(before);
});

test('both names at once, neither, or a bad alias value is C0002 naming the field; nothing is counted', async () => {
  const user = await signUp(h.app);
  const before = await aliasCount();
  const both = await signIn({ userName: user.userName, email: user.userName, password: user.password });
  expectError(both, 400, 'C0002', '아이디와 이메일(아이디의 예전 이름)은 함께 보낼 수 없습니다.');
  expect(both.headers['set-cookie']).toBeUndefined();
  expectError(await signIn({ password: user.password }), 400, 'C0002', '아이디 값이 누락되었습니다.');
  expectError(await signIn({ email: '', password: user.password }), 400, 'C0002', '이메일 값이 올바르지 않습니다.');
  expectError(await signIn({ email: 7, password: user.password }), 400, 'C0002', '이메일 값이 올바르지 않습니다.');
  expectError(await signIn({ email: user.userName }), 400, 'C0002', '비밀번호 값이 누락되었습니다.');
  expect(await aliasCount()).toBe(before);
});
