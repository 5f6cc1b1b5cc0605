import { createLogger, metricsRegistry } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { connectTestDb, testEnv, expectError } from '../../../test/support';
import { buildApp } from '../src/service';
import { LocalMailSender, LocalSmsSender } from '../src/domain/senders';
import { signUp, signedIn, startAccountsHarness, TEST_BCRYPT_COST, type AccountsHarness } from './helpers';

let h: AccountsHarness;
/** A second accounts instance: its own app and its own connection to the same database. */
let other: { app: Express; connection: Connection };
beforeAll(async () => {
  h = await startAccountsHarness('acctthrottle');
  const connection = await connectTestDb(h.names.db);
  other = {
    connection,
    app: buildApp({
      connection,
      bcryptCost: TEST_BCRYPT_COST,
      now: () => h.clock.now(),
      logger: createLogger('accounts-test', 'silent'),
      publicKey: testEnv().publicKey,
      privateKey: testEnv().privateKey,
      senders: { sms: new LocalSmsSender(undefined), mail: new LocalMailSender(undefined) },
      trustProxy: true,
    }),
  };
});
afterAll(async () => {
  await other.connection.close();
  await h.close();
});
afterEach(() => {
  h.clockAt(0);
});

const LOCK_SECONDS = 15 * 60;
const WRONG = 'Wrong0pass!';

const signIn = (body: Record<string, unknown>, password: unknown, options: { app?: Express; path?: string; from?: string } = {}) => {
  const req = request(options.app ?? h.app).post(options.path ?? '/api/v1/users/sign-in');
  if (options.from) req.set('X-Forwarded-For', options.from);
  return req.send({ userName: body.userName, password });
};

async function failTimes(body: Record<string, unknown>, times: number): Promise<void> {
  for (let i = 0; i < times; i++) expectError(await signIn(body, WRONG), 400, 'U0002');
}

describe('sign-in throttling per account', () => {
  it('refuses every sign-in for 15 minutes after 5 wrong passwords, with 429 C0004 and Retry-After', async () => {
    const user = await signUp(h.app);
    await failTimes(user, 5);
    const locked = await signIn(user, user.password);
    expectError(locked, 429, 'C0004', '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.');
    expect(locked.headers['retry-after']).toBe(String(LOCK_SECONDS));
    expect(locked.headers['set-cookie']).toBeUndefined();
    // A wrong password while locked is refused the same way (no U0002 oracle, no bcrypt work).
    expectError(await signIn(user, WRONG), 429, 'C0004');

    h.clockAt((LOCK_SECONDS - 10) * 1000);
    const later = await signIn(user, user.password);
    expectError(later, 429, 'C0004');
    expect(later.headers['retry-after']).toBe('10');

    h.clockAt(LOCK_SECONDS * 1000 + 1);
    expect((await signIn(user, user.password)).status).toBe(200);
  });

  it('is the same lock whatever the path spelling, X-Forwarded-For or instance', async () => {
    const user = await signUp(h.app);
    for (let i = 0; i < 5; i++) expectError(await signIn(user, WRONG, { app: other.app, from: `203.0.113.${i}` }), 400, 'U0002');
    expectError(await signIn(user, user.password, { path: '/API/V1/Users/Sign-In/', from: '198.51.100.7' }), 429, 'C0004');
    expectError(await signIn(user, user.password, { app: other.app, path: '/api/v1/users/sign-in/', from: '192.0.2.1' }), 429, 'C0004');
    expectError(await signIn(user, user.password), 429, 'C0004');
  });

  it('a success resets the count: only consecutive wrong passwords lock', async () => {
    const user = await signUp(h.app);
    await failTimes(user, 4);
    expect((await signIn(user, user.password)).status).toBe(200);
    await failTimes(user, 4);
    expect((await signIn(user, user.password)).status).toBe(200);
  });

  it('starts a fresh count once the lock has passed', async () => {
    const user = await signUp(h.app);
    await failTimes(user, 5);
    h.clockAt(LOCK_SECONDS * 1000 + 1);
    await failTimes(user, 4);
    expect((await signIn(user, user.password)).status).toBe(200);
  });

  it('does not affect other accounts signing in from the same address', async () => {
    const victim = await signUp(h.app);
    const neighbour = await signUp(h.app);
    for (let i = 0; i < 5; i++) expectError(await signIn(victim, WRONG, { app: other.app, from: '198.51.100.20' }), 400, 'U0002');
    expectError(await signIn(victim, victim.password, { app: other.app, from: '198.51.100.20' }), 429, 'C0004');
    expect((await signIn(neighbour, neighbour.password, { app: other.app, from: '198.51.100.20' })).status).toBe(200);
  });

  it('counts every one of many concurrent wrong passwords (no undercount)', async () => {
    const user = await signUp(h.app);
    await failTimes(user, 2);
    const parallel = await Promise.all([0, 1, 2].map((i) => signIn(user, WRONG, { app: i % 2 === 0 ? h.app : other.app })));
    expect(parallel.map((r) => r.status)).toEqual([400, 400, 400]);
    expectError(await signIn(user, user.password), 429, 'C0004');

    const second = await signUp(h.app);
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => signIn(second, WRONG, { app: i % 2 === 0 ? h.app : other.app })));
    expect(burst.every((r) => r.status === 400 || r.status === 429)).toBe(true);
    expectError(await signIn(second, second.password), 429, 'C0004');
  });

  it('lets 25 members sign in from one address within a minute', async () => {
    const members = [];
    for (let i = 0; i < 25; i++) members.push(await signUp(h.app));
    const results = await Promise.all(members.map((m) => signIn(m, m.password, { app: other.app, from: '198.51.100.99' })));
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(200));
  });
});

describe('a password verified moments ago (the memory of verified passwords) meets the same limit', () => {
  /** binzip_password_checks_total by how checks were answered, in this process. */
  async function passwordChecks(): Promise<{ memory: number; bcrypt: number }> {
    const values = (await metricsRegistry.getSingleMetric('binzip_password_checks_total')?.get())?.values ?? [];
    const of = (answeredBy: string) => values.find((v) => v.labels.answered_by === answeredBy)?.value ?? 0;
    return { memory: of('memory'), bcrypt: of('bcrypt') };
  }

  it('counts each sign-in as one check, answered from memory or by bcrypt, whichever path judged it', async () => {
    const user = await signUp(h.app);
    const delta = async (signInOnce: () => Promise<unknown>) => {
      const before = await passwordChecks();
      await signInOnce();
      const after = await passwordChecks();
      return { memory: after.memory - before.memory, bcrypt: after.bcrypt - before.bcrypt };
    };
    expect(await delta(async () => expect((await signIn(user, user.password)).status).toBe(200))).toEqual({ memory: 0, bcrypt: 1 });
    // A clean window: the fast path answers.
    expect(await delta(async () => expect((await signIn(user, user.password)).status).toBe(200))).toEqual({ memory: 1, bcrypt: 0 });
    expect(await delta(() => failTimes(user, 1))).toEqual({ memory: 0, bcrypt: 1 });
    // A wrong guess pending forgiveness: the full path answers, from memory, once.
    expect(await delta(async () => expect((await signIn(user, user.password)).status).toBe(200))).toEqual({ memory: 1, bcrypt: 0 });
  });

  it('is refused while the account is locked, and its first right answer after wrong ones ends their run', async () => {
    const user = await signUp(h.app);
    // Signed in once: bcrypt accepted the password, so the next right answers come from memory.
    expect((await signIn(user, user.password)).status).toBe(200);
    expect((await signIn(user, user.password)).status).toBe(200);
    await failTimes(user, 4);
    // Four wrong in the window: the remembered right password still clears them (only consecutive ones lock).
    expect((await signIn(user, user.password)).status).toBe(200);
    await failTimes(user, 4);
    expect((await signIn(user, user.password, { app: other.app })).status).toBe(200);
    await failTimes(user, 5);
    // The fast path stores a remembered password's session while it reads the window: a refusal takes it back.
    const stored = await h.ctx.models.users.findOne({ userName: user.userName }).lean().exec();
    const sessions = () => h.ctx.models.refreshTokens.countDocuments({ userId: stored?._id }).exec();
    const sessionsBefore = await sessions();
    expectError(await signIn(user, user.password), 429, 'C0004');
    expectError(await signIn(user, user.password, { app: other.app }), 429, 'C0004');
    expect(await sessions()).toBe(sessionsBefore);
    h.clockAt(LOCK_SECONDS * 1000 + 1);
    expect((await signIn(user, user.password)).status).toBe(200);
  });
});

describe('attempts are reserved before the password is compared (issue 19 item 3)', () => {
  const judged = (answers: request.Response[]) => answers.filter((r) => r.status !== 429).length;
  const statuses = (answers: request.Response[]) => answers.map((r) => r.status).sort();

  it('100 wrong passwords at once on two instances: at most 5 are judged, the rest are 429, then the account is locked', async () => {
    const user = await signUp(h.app);
    const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => signIn(user, `${WRONG}${i}`, { app: i % 2 === 0 ? h.app : other.app })));
    expect(judged(burst)).toBeLessThanOrEqual(5);
    for (const res of burst) expect([400, 429]).toContain(res.status);
    expectError(await signIn(user, user.password), 429, 'C0004');
  });

  it('19 wrong passwords and the right one at once: no more than 5 judged; unless the right one was among them, the account is locked', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signUp(h.app);
      const guesses = Array.from({ length: 19 }, (_, i) => `${WRONG}${i}`);
      guesses.splice(round * 7, 0, String(user.password));
      const answers = await Promise.all(guesses.map((password, i) => signIn(user, password, { app: i % 2 === 0 ? h.app : other.app })));
      const rightWon = answers.some((r) => r.status === 200);
      // The right password, verified at sign-up and arriving while the window is still clean, is answered from
      // the memory of verified passwords without taking a slot: then it is a sixth answer beside the five wrong
      // guesses the window judges (first seen on Node 24, where it wins the race every time). Wrong ones judged:
      // at most 5, whatever the order.
      expect(judged(answers)).toBeLessThanOrEqual(rightWon ? 6 : 5);
      expect(statuses(answers).filter((s) => s === 400).length).toBeLessThanOrEqual(5);
      if (!rightWon) expectError(await signIn(user, user.password), 429, 'C0004');
    }
  });

  it('check/password: 5 wrong answers false, then 429 with Retry-After even for the right password; sign-in is locked too', async () => {
    const user = await signUp(h.app);
    const { bearer } = await signedIn(h.app, user);
    const check = (password: string) => request(h.app).post('/api/v1/users/check/password').set('Authorization', bearer).send({ password });
    for (let i = 0; i < 5; i++) expect((await check(WRONG)).body.data).toBe(false);
    const locked = await check(String(user.password));
    expectError(locked, 429, 'C0004');
    expect(locked.headers['retry-after']).toBe(String(LOCK_SECONDS));
    expectError(await signIn(user, user.password), 429, 'C0004');
    h.clockAt(LOCK_SECONDS * 1000 + 1_000);
    expect((await check(String(user.password))).body.data).toBe(true);
  });

  it('check/password: 60 wrong guesses at once judge at most 5', async () => {
    const user = await signUp(h.app);
    const { bearer } = await signedIn(h.app, user);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        request(i % 2 === 0 ? h.app : other.app)
          .post('/api/v1/users/check/password')
          .set('Authorization', bearer)
          .send({ password: `${WRONG}${i}` }),
      ),
    );
    expect(judged(answers)).toBeLessThanOrEqual(5);
    expect(answers.filter((r) => r.status === 200).every((r) => r.body.data === false)).toBe(true);
  });

  it('PUT /api/v1/users: the current password is judged under the same limit', async () => {
    const user = await signUp(h.app);
    const { bearer } = await signedIn(h.app, user);
    const update = (password: string) =>
      request(h.app)
        .put('/api/v1/users')
        .set('Authorization', bearer)
        .send({ password, nick_name: `바뀐${String(user.nick_name).slice(-6)}` });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => update(`${WRONG}${i}`)));
    expect(judged(answers)).toBeLessThanOrEqual(5);
    const locked = await update(String(user.password));
    expectError(locked, 429, 'C0004');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });
});
