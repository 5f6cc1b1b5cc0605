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
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = Date.now();
    await hasher.hash('Passw0rd!');
    const elapsed = Date.now() - started;
    clearInterval(timer);
    // A hash on the event loop would let no tick through until it returned.
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 5 / 4));
    expect(ticks).toBeGreaterThan(2);
  });

  it('refuses a concurrency below one', () => {
    expect(() => new PasswordHasher(10, 0)).toThrow(/concurrency/);
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
