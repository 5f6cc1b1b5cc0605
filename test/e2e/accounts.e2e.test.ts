/**
 * Accounts end to end: the built gateway and accounts processes (run `npx tsc -b` first) against the real
 * stores. Verification codes are read from the accounts process's DEV_OUTBOX_DIR, as a developer would.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus, connectMongo, createLogger } from '@binzip/shared';
import { startSystem, type RunningSystem } from '../../scripts/lib/system';
import { eventually, isolatedNames, testEnv } from '../support';

const names = isolatedNames('acce2e');
const outboxDir = mkdtempSync(path.join(os.tmpdir(), 'accounts-e2e-'));
let system: RunningSystem;

beforeAll(async () => {
  const env = testEnv();
  system = await startSystem({
    mongoUri: env.mongoUri,
    natsUrl: env.natsUrl,
    publicKey: env.publicKey,
    privateKey: env.privateKey,
    services: ['accounts'],
    dbPrefix: `${names.db}_`,
    natsPrefix: names.natsPrefix,
    env: { BCRYPT_COST: '4', DEV_OUTBOX_DIR: outboxDir, LOG_LEVEL: 'warn' },
  });
}, 90_000);

afterAll(async () => {
  await system?.stop();
  rmSync(outboxDir, { recursive: true, force: true });
  const connection = await connectMongo(testEnv().mongoUri, `${names.db}_accounts`);
  await connection.dropDatabase();
  await connection.close();
  const bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'accounts-e2e-cleanup', logger: createLogger('e2e', 'silent') });
  await bus.deleteStreams();
  await bus.close();
});

async function call(method: string, route: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${system.url}${route}`, {
    method,
    headers: { ...(options.body !== undefined ? { 'Content-Type': 'application/json;charset=UTF-8' } : {}), ...options.headers },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, cookies: res.headers.getSetCookie() };
}

const refreshOf = (cookies: string[]): string => {
  const line = cookies.find((c) => c.startsWith('RefreshToken='));
  if (!line) throw new Error(`no refresh cookie in ${JSON.stringify(cookies)}`);
  return line.slice('RefreshToken='.length).split(';')[0] ?? '';
};

function codeSentTo(to: string): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(outboxDir, 'messages.jsonl'), 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  const message = lines.map((l) => JSON.parse(l) as { to: string; text: string }).reverse().find((m) => m.to === to);
  return message ? /(\d{4})/.exec(message.text)?.[1] : undefined;
}

it('signs up, verifies a phone, signs in, reissues with the cookie, reads the profile and logs out through the gateway', async () => {
  const phone = '01077778888';
  expect((await call('POST', '/api/v1/users/send/sms', { body: { phone_num: phone } })).body).toEqual({ code: 'SUCCESS', message: '성공' });
  const code = await eventually(() => codeSentTo(phone));
  expect((await call('POST', '/api/v1/users/check/sms', { body: { phone_num: phone, code } })).body.data).toBe(true);

  const signUp = await call('POST', '/api/v1/users/sign-up', {
    body: { userName: 'e2e_user', password: 'Passw0rd!', nick_name: '이투이', phone_num: phone, age: '20대', join_paths: ['검색'], terms: ['SERVICE_USED_AGREE'], email: 'e2e@example.com' },
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

  const reissued = await call('POST', '/api/v1/users/reissue', { body: { access_token: signIn.body.data.access_token }, headers: { Cookie: `RefreshToken=${refresh}` } });
  expect(reissued.status).toBe(200);
  const bearer = reissued.body.data.access_token as string;
  const rotated = refreshOf(reissued.cookies);
  expect(rotated).not.toBe(refresh);

  const profile = await call('GET', '/api/v1/users', { headers: { Authorization: bearer } });
  expect(profile.status).toBe(200);
  expect(profile.body.data).toMatchObject({ userName: 'e2e_user', nick_name: '이투이', phone_num: phone, age: 'TWENTY', authority: 'USER', userType: 'NONE', suspenseReason: null });
  expect(typeof profile.body.data.profile_image_url).toBe('string');

  const noToken = await call('GET', '/api/v1/users');
  expect(noToken).toMatchObject({ status: 401, body: { code: 'J0000' } });

  const logout = await call('POST', '/api/v1/users/logout', { headers: { Authorization: bearer, Cookie: `RefreshToken=${rotated}` } });
  expect(logout.status).toBe(200);
  expect(logout.cookies).toEqual(['RefreshToken=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=None']);
  const afterLogout = await call('POST', '/api/v1/users/reissue', { body: { access_token: bearer }, headers: { Cookie: `RefreshToken=${rotated}` } });
  expect(afterLogout).toMatchObject({ status: 401, body: { code: 'J0004' } });
}, 60_000);

it('answers bad input through the gateway with a 4xx envelope', async () => {
  const res = await fetch(`${system.url}/api/v1/users/sign-up`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"userName":' });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ code: 'C0002' });
  const huge = await call('POST', '/api/v1/users/check/nick-name', { body: { nick_name: 'a'.repeat(100_000) } });
  expect(huge.status).toBeGreaterThanOrEqual(400);
  expect(huge.status).toBeLessThan(500);
  expect(huge.body.code).toBe('C0002');
});
