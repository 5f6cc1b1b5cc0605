import { ResponseCache } from '../src';

/**
 * Keys naming a part of what another key names (`<whole>/<part>`): a change of a part changes its whole and no
 * other part, a change of the whole changes every part. Driven through the gateway's side of the cache (`keep`,
 * `recall`), which shares the index and the change history with the services' side.
 */

const body = Buffer.from('{}');
let clock = 0;
let cache: ResponseCache;

beforeEach(() => {
  clock += 60_000;
  cache = new ResponseCache({ now: () => clock });
});

afterEach(() => cache.stop());

const keep = (url: string, keys: string[], began = cache.lastChange) => cache.keep(url, began, { ttlMs: 10_000, keys }, body, {});
const kept = (url: string) => cache.recall(url) !== undefined;

describe('keys with parts', () => {
  beforeEach(() => {
    keep('/whole', ['board:1']);
    keep('/listed', ['board:1/listed']);
    keep('/loves', ['board:1/loves']);
    keep('/other', ['board:2/listed', 'board:10']);
  });

  it('a change of a part forgets the answers depending on it and on its whole, not those on another part', () => {
    cache.forget(['board:1/loves']);
    expect([kept('/whole'), kept('/listed'), kept('/loves'), kept('/other')]).toEqual([false, true, false, true]);
  });

  it('a change of the whole forgets the answers depending on any of its parts', () => {
    cache.forget(['board:1']);
    expect([kept('/whole'), kept('/listed'), kept('/loves'), kept('/other')]).toEqual([false, false, false, true]);
  });

  it('a key that only begins like another is no part of it', () => {
    cache.forget(['board:10/listed']);
    expect([kept('/whole'), kept('/listed'), kept('/loves'), kept('/other')]).toEqual([true, true, true, false]);
    cache.forget(['board:2']);
    expect(kept('/other')).toBe(false);
  });
});

describe('an answer asked for while a key changed', () => {
  it('is not kept when a part of its key, or its whole, changed since it began; it is when another part did', () => {
    const began = cache.lastChange;
    cache.forget(['board:1/loves']);
    expect(keep('/whole', ['board:1'], began)).toBe(false);
    expect(keep('/loves', ['board:1/loves'], began)).toBe(false);
    expect(keep('/listed', ['board:1/listed'], began)).toBe(true);

    const again = cache.lastChange;
    cache.forget(['board:1']);
    expect(keep('/listed', ['board:1/listed'], again)).toBe(false);
  });

  it('the gateway keeps no answer whose part or whole changed less than its settle time ago, and keeps one whose other part did', () => {
    const gateway = new ResponseCache({ now: () => clock, settleMs: 1_000 });
    try {
      gateway.forget(['board:1/loves']);
      const began = gateway.lastChange;
      const offer = (keys: string[]) => ({ ttlMs: 10_000, keys });
      expect(gateway.keep('/whole', began, offer(['board:1']), body, {})).toBe(false);
      expect(gateway.keep('/listed', began, offer(['board:1/listed']), body, {})).toBe(true);
      gateway.forget(['board:2']);
      expect(gateway.keep('/listed2', gateway.lastChange, offer(['board:2/listed']), body, {})).toBe(false);
      clock += 1_001;
      expect(gateway.keep('/whole', gateway.lastChange, offer(['board:1']), body, {})).toBe(true);
      expect(gateway.keep('/listed2', gateway.lastChange, offer(['board:2/listed']), body, {})).toBe(true);
    } finally {
      gateway.stop();
    }
  });
});

describe('the changes a service heard, told to the gateway (`heardDigest`)', () => {
  const offer = (keys: string[]) => ({ ttlMs: 10_000, keys });
  let gateway: ResponseCache;
  beforeEach(() => (gateway = new ResponseCache({ now: () => clock, settleMs: 1_000 })));
  afterEach(() => gateway.stop());

  it('the gateway keeps an answer whose key changed within its settle time when the service had heard the same changes', () => {
    cache.forget(['board:1'], 'announcement', 'change-1');
    gateway.forget(['board:1'], 'announcement', 'change-1');
    const heard = cache.heardDigest(['board:1/listed']);
    expect(gateway.keep('/listed', gateway.lastChange, offer(['board:1/listed']), body, {}, heard)).toBe(true);
    // Without the service's word, or with another's, the settle time holds.
    expect(gateway.keep('/listed-unsaid', gateway.lastChange, offer(['board:1/listed']), body, {})).toBe(false);
    expect(gateway.keep('/listed-other', gateway.lastChange, offer(['board:1/listed']), body, {}, cache.heardDigest(['board:2']))).toBe(false);
  });

  it('keeps none when the gateway heard a change of its keys that the service had not, or everything changed', () => {
    cache.forget(['board:1'], 'announcement', 'change-1');
    gateway.forget(['board:1'], 'announcement', 'change-1');
    gateway.forget(['board:1/loves'], 'announcement', 'change-2');
    expect(gateway.keep('/whole', gateway.lastChange, offer(['board:1']), body, {}, cache.heardDigest(['board:1']))).toBe(false);
    // Another part's change heard by the gateway alone does not concern a list.
    expect(gateway.keep('/listed', gateway.lastChange, offer(['board:1/listed']), body, {}, cache.heardDigest(['board:1/listed']))).toBe(true);
    cache.forget(undefined);
    expect(cache.heardDigest(['board:1/listed'])).toBeUndefined();
  });

  it('a change heard again under its id (a write coming back as its announcement) forgets nothing more', () => {
    cache.forget(['board:1'], 'here', 'change-1');
    keep('/whole', ['board:1']);
    cache.forget(['board:1'], 'announcement', 'change-1');
    expect(kept('/whole')).toBe(true);
    cache.forget(['board:1'], 'announcement', 'change-2');
    expect(kept('/whole')).toBe(false);
  });
});
