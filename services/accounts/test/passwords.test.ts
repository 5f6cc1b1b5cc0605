import { createPublicKey } from 'node:crypto';
import bcrypt from 'bcrypt';
import { generateDevKeyPair } from '@binzip/shared';
import { readConfig } from '../src/config';
import { PasswordHasher } from '../src/domain/passwords';

/** A real key pair: accounts refuses to start with keys it could not sign or verify with. */
const configKeys = generateDevKeyPair();

describe('PasswordHasher', () => {
  it('runs at most `concurrency` computations at once; the rest queue and all finish correctly', async () => {
    const hasher = new PasswordHasher(4, 2);
    const passwords = ['Passw0rd!1', 'Passw0rd!2', 'Passw0rd!3', 'Passw0rd!4', 'Passw0rd!5'];
    const hashes = passwords.map((p) => hasher.hash(p));
    expect(hasher.load).toEqual({ running: 2, queued: 3 });
    const done = await Promise.all(hashes);
    expect(hasher.load).toEqual({ running: 0, queued: 0 });
    for (const [i, hash] of done.entries()) {
      expect(bcrypt.getRounds(hash)).toBe(4);
      await expect(hasher.matches(passwords[i], hash)).resolves.toBe(true);
      await expect(hasher.matches('wrong', hash)).resolves.toBe(false);
    }
  });

  it('keeps the slot after a failure: a rejected computation frees it for the next in line', async () => {
    const hasher = new PasswordHasher(4, 1);
    // bcrypt refuses a missing password: the computation rejects.
    const broken = hasher.hash(undefined as unknown as string);
    const next = hasher.hash('Passw0rd!');
    expect(hasher.load).toEqual({ running: 1, queued: 1 });
    await expect(broken).rejects.toThrow();
    await expect(next).resolves.toMatch(/^\$2b\$04\$/);
    expect(hasher.load).toEqual({ running: 0, queued: 0 });
  });

  it('hashes off the event loop: timers keep firing while a cost-12 hash runs', async () => {
    const hasher = new PasswordHasher(12, 1);
    const started = performance.now();
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 5);
    await hasher.hash('Passw0rd!');
    const ended = performance.now();
    clearInterval(timer);
    // A hash on the event loop would let no tick through until it returned: one gap as long as the whole hash. How
    // many ticks fit is the machine's (a busy one fires a 5 ms timer far less often), so the gaps are what is judged.
    const moments = [started, ...ticks, ended];
    const longestGap = Math.max(...moments.slice(1).map((at, i) => at - moments[i]));
    expect(ticks.length).toBeGreaterThan(2);
    expect(longestGap).toBeLessThan((ended - started) / 2);
  });

  it('refuses a concurrency below one', () => {
    expect(() => new PasswordHasher(10, 0)).toThrow(/concurrency/);
  });
});

describe('PasswordHasher: the memory of verified passwords', () => {
  const clock = { ms: 0 };
  const remembering = (options: { rememberMs?: number; maxRemembered?: number } = {}) =>
    new PasswordHasher(4, 1, { rememberMs: 60_000, now: () => clock.ms, ...options });
  beforeEach(() => {
    clock.ms = 0;
  });

  it('answers a password bcrypt accepted for the same hash from memory, without bcrypt or a queue slot', async () => {
    const hasher = remembering();
    const hash = await hasher.hash('Passw0rd!');
    await expect(hasher.matches('Passw0rd!', hash)).resolves.toBe(true);
    expect(hasher.checks).toEqual({ remembered: 0, computed: 1 });
    const again = hasher.matches('Passw0rd!', hash);
    // Answered before any bcrypt could run: nothing took the one slot.
    expect(hasher.load).toEqual({ running: 0, queued: 0 });
    await expect(again).resolves.toBe(true);
    // A look-up is not a check: only answers are counted.
    expect(hasher.remembers('Passw0rd!', hash)).toBe(true);
    expect(hasher.checks).toEqual({ remembered: 1, computed: 1 });
  });

  it('never remembers a wrong password, and a wrong one for a remembered hash still costs a bcrypt', async () => {
    const hasher = remembering();
    const hash = await hasher.hash('Passw0rd!');
    await expect(hasher.matches('Wrong0pass!', hash)).resolves.toBe(false);
    await expect(hasher.matches('Wrong0pass!', hash)).resolves.toBe(false);
    expect(hasher.checks.computed).toBe(2);
    await hasher.matches('Passw0rd!', hash);
    await expect(hasher.matches('Passw0rd!x', hash)).resolves.toBe(false);
    await expect(hasher.matches('Passw0rd', hash)).resolves.toBe(false);
    expect(hasher.checks).toEqual({ remembered: 0, computed: 5 });
  });

  it('is keyed by the stored hash: a new hash (changed password, withdrawal) matches nothing remembered', async () => {
    const hasher = remembering();
    const before = await hasher.hash('Passw0rd!');
    await hasher.matches('Passw0rd!', before);
    const after = await hasher.hash('N3wPass!!');
    expect(hasher.remembers('Passw0rd!', after)).toBe(false);
    await expect(hasher.matches('Passw0rd!', after)).resolves.toBe(false);
    expect(hasher.remembers('N3wPass!!', before)).toBe(false);
  });

  it('forgets after rememberMs, and keeps at most maxRemembered hashes (the least recently verified go)', async () => {
    const hasher = remembering({ maxRemembered: 2 });
    const hashes = await Promise.all(['Passw0rd!1', 'Passw0rd!2', 'Passw0rd!3'].map((p) => hasher.hash(p)));
    await hasher.matches('Passw0rd!1', hashes[0]);
    clock.ms = 59_999;
    expect(hasher.remembers('Passw0rd!1', hashes[0])).toBe(true);
    clock.ms = 60_000;
    expect(hasher.remembers('Passw0rd!1', hashes[0])).toBe(false);
    for (const [i, hash] of hashes.entries()) await hasher.matches(`Passw0rd!${i + 1}`, hash);
    expect(hashes.map((hash, i) => hasher.remembers(`Passw0rd!${i + 1}`, hash))).toEqual([false, true, true]);
  });

  it('remembers nothing when rememberMs is 0: bcrypt answers every check', async () => {
    const hasher = remembering({ rememberMs: 0 });
    const hash = await hasher.hash('Passw0rd!');
    for (let i = 0; i < 3; i++) await expect(hasher.matches('Passw0rd!', hash)).resolves.toBe(true);
    expect(hasher.remembers('Passw0rd!', hash)).toBe(false);
    expect(hasher.checks).toEqual({ remembered: 0, computed: 3 });
  });
});

describe('PASSWORD_CHECK_MEMORY_SECONDS', () => {
  const base = { JWT_PUBLIC_KEY: configKeys.publicKey, JWT_PRIVATE_KEY: configKeys.privateKey };

  it('defaults to 600, accepts 0 (off) to 3600 and nothing else', () => {
    expect(readConfig(base).PASSWORD_CHECK_MEMORY_SECONDS).toBe(600);
    expect(readConfig({ ...base, PASSWORD_CHECK_MEMORY_SECONDS: '0' }).PASSWORD_CHECK_MEMORY_SECONDS).toBe(0);
    for (const bad of ['-1', '3601', '1.5', 'ten'])
      expect(() => readConfig({ ...base, PASSWORD_CHECK_MEMORY_SECONDS: bad })).toThrow(/PASSWORD_CHECK_MEMORY_SECONDS/);
  });
});

describe('PASSWORD_HASH_CONCURRENCY', () => {
  const base = { JWT_PUBLIC_KEY: configKeys.publicKey, JWT_PRIVATE_KEY: configKeys.privateKey };

  it('defaults to every core but one and accepts 1..64', () => {
    expect(readConfig(base).PASSWORD_HASH_CONCURRENCY).toBeGreaterThanOrEqual(1);
    expect(readConfig({ ...base, PASSWORD_HASH_CONCURRENCY: '3' }).PASSWORD_HASH_CONCURRENCY).toBe(3);
    expect(() => readConfig({ ...base, PASSWORD_HASH_CONCURRENCY: '0' })).toThrow(/PASSWORD_HASH_CONCURRENCY/);
  });
});

describe('VERIFICATION_CODE_DIGITS', () => {
  const base = { JWT_PUBLIC_KEY: configKeys.publicKey, JWT_PRIVATE_KEY: configKeys.privateKey };

  it('defaults to 6 and accepts 4..8 only', () => {
    expect(readConfig(base).VERIFICATION_CODE_DIGITS).toBe(6);
    expect(readConfig({ ...base, VERIFICATION_CODE_DIGITS: '4' }).VERIFICATION_CODE_DIGITS).toBe(4);
    expect(readConfig({ ...base, VERIFICATION_CODE_DIGITS: '8' }).VERIFICATION_CODE_DIGITS).toBe(8);
    for (const bad of ['3', '9', '5.5', 'six']) expect(() => readConfig({ ...base, VERIFICATION_CODE_DIGITS: bad })).toThrow(/VERIFICATION_CODE_DIGITS/);
  });
});

describe('accounts key configuration', () => {
  it('refuses to start when the signing key is not in the accepted set (its tokens would be refused everywhere)', () => {
    const other = generateDevKeyPair();
    expect(() => readConfig({ JWT_PUBLIC_KEY: other.publicKey, JWT_PRIVATE_KEY: configKeys.privateKey })).toThrow(
      /JWT_PRIVATE_KEY: its public key \(kid [\w-]+\) is not in JWT_PUBLIC_KEY/,
    );
    expect(() => readConfig({ JWT_PUBLIC_KEY: configKeys.publicKey, JWT_PRIVATE_KEY: 'priv' })).toThrow(/JWT_PRIVATE_KEY: not an ES256 private key PEM/);
    const both = JSON.stringify({ keys: [other.publicKey, configKeys.publicKey].map((pem) => createPublicKey(pem).export({ format: 'jwk' })) });
    expect(readConfig({ JWT_PUBLIC_KEY: both, JWT_PRIVATE_KEY: configKeys.privateKey }).JWT_PUBLIC_KEY).toBe(both);
  });
});
