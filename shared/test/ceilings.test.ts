import type { Connection } from 'mongoose';
import { addressKey, Ceiling, TooManyRequestsError } from '../src';
import { connectTestDb, dropTestDb, isolatedNames } from '../../test/support';

/** Two connections to one database stand for two instances of a service (or two gateways' services). */
let first: Connection;
let second: Connection;

beforeAll(async () => {
  const { db } = isolatedNames('ceilings');
  first = await connectTestDb(db);
  second = await connectTestDb(db);
});

afterAll(async () => {
  await second?.close();
  await dropTestDb(first);
});

const outcomes = (results: PromiseSettledResult<void>[]) => ({
  allowed: results.filter((r) => r.status === 'fulfilled').length,
  refused: results.filter((r) => r.status === 'rejected' && r.reason instanceof TooManyRequestsError).length,
});

describe('Ceiling (rate-limiter-flexible on the MongoDB store)', () => {
  it('admits exactly the limit across instances sharing the store, however many arrive at once', async () => {
    const rule = { name: 'shared-test', limit: 10, windowSeconds: 60 };
    const instances = [new Ceiling(first, rule), new Ceiling(second, rule)];
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => instances[i % 2].take('member-7')));
    expect(outcomes(results)).toEqual({ allowed: 10, refused: 20 });
    // Another key has its own count.
    await expect(instances[1].take('member-8')).resolves.toBeUndefined();
  });

  it('refuses with 429 C0004 and the seconds until the window frees up', async () => {
    const ceiling = new Ceiling(first, { name: 'retry-after', limit: 1, windowSeconds: 120 });
    await ceiling.take('a');
    const refusal = await ceiling.take('a').catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(TooManyRequestsError);
    expect(refusal).toMatchObject({ code: 'C0004', status: 429 });
    const seconds = (refusal as TooManyRequestsError).retryAfterSeconds;
    expect(seconds).toBeGreaterThan(100);
    expect(seconds).toBeLessThanOrEqual(120);
  });

  it('frees up when the window ends (an expired count is replaced, not added to)', async () => {
    const ceiling = new Ceiling(first, { name: 'window', limit: 2, windowSeconds: 1 });
    await ceiling.take('b');
    await ceiling.take('b');
    await expect(ceiling.take('b')).rejects.toBeInstanceOf(TooManyRequestsError);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // A fresh instance (no memory of the refusal) and the old one both see a new window.
    await expect(new Ceiling(second, { name: 'window', limit: 2, windowSeconds: 1 }).take('b')).resolves.toBeUndefined();
    await expect(ceiling.take('b')).resolves.toBeUndefined();
    await expect(ceiling.take('b')).rejects.toBeInstanceOf(TooManyRequestsError);
  });

  it('is off at limit 0', async () => {
    const ceiling = new Ceiling(first, { name: 'off', limit: 0, windowSeconds: 60 });
    for (let i = 0; i < 5; i++) await ceiling.take('c');
    expect(await first.db!.collection('ceilings').countDocuments({ key: /^off:/ })).toBe(0);
  });
});

describe('addressKey', () => {
  it('keys IPv4 by the address, IPv4-mapped IPv6 as IPv4, IPv6 by its /56', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:aa:bbcc:1:2:3:4')).toBe('2001:db8:aa:bb00::/56');
    expect(addressKey('2001:db8:aa:bbff::9')).toBe(addressKey('2001:db8:aa:bb00:ffff::1'));
    expect(addressKey('2001:db8:aa:cc00::1')).not.toBe(addressKey('2001:db8:aa:bb00::1'));
    expect(addressKey(undefined)).toBeUndefined();
  });
});
