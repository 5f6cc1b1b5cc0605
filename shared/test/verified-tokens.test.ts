import jwt from 'jsonwebtoken';
import { AppError, generateDevKeyPair, signAccessToken, VerifiedTokens, verifyAccessJwt, type AuthClaims } from '../src';

const keys = generateDevKeyPair();
const otherKeys = generateDevKeyPair();
const claims: AuthClaims = { userId: 901, userName: 'memo901', authority: 'USER', userType: 'NONE', sessionId: 'memo-session' };
const bearer = (token: string) => `Bearer ${token}`;

const codeOf = (verify: () => unknown): string | undefined => {
  try {
    verify();
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
};

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

describe('VerifiedTokens: the one memory of verified Authorization headers (gateway and services)', () => {
  it('verifies the signature once per header: later checks are answered from memory with the same claims', () => {
    const tokens = new VerifiedTokens(keys.publicKey);
    const header = bearer(signAccessToken({ ...claims, userId: 902 }, keys.privateKey));
    const verify = jest.spyOn(jwt, 'verify');
    for (let i = 0; i < 3; i++) expect(tokens.check(header)).toEqual({ ...claims, userId: 902 });
    expect(verify).toHaveBeenCalledTimes(1);
    expect(tokens.size).toBe(1);
  });

  it('answers null without a header, and J0004 for one that is not a bearer token, never remembering it', () => {
    const tokens = new VerifiedTokens(keys.publicKey);
    expect(tokens.check(undefined)).toBeNull();
    expect(tokens.check('')).toBeNull();
    const basic = `Basic ${signAccessToken(claims, keys.privateKey)}`;
    expect(codeOf(() => tokens.check(basic))).toBe('J0004');
    expect(codeOf(() => tokens.check(basic))).toBe('J0004');
    expect(tokens.size).toBe(0);
  });

  it('still refuses an altered copy of a remembered token, and the same token under a key set without its key', () => {
    const tokens = new VerifiedTokens(keys.publicKey);
    const token = signAccessToken(claims, keys.privateKey);
    tokens.check(bearer(token));
    const [header, payload, signature] = token.split('.');
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(codeOf(() => tokens.check(bearer(flipped)))).toMatch(/^J000[14]$/);
    const forgedPayload = Buffer.from(JSON.stringify({ ...jwt.decode(token, { json: true }), sub: '1' })).toString('base64url');
    expect(codeOf(() => tokens.check(bearer(`${header}.${forgedPayload}.${signature}`)))).toMatch(/^J000[14]$/);
    expect(codeOf(() => new VerifiedTokens(otherKeys.publicKey).check(bearer(token)))).toMatch(/^J000[14]$/);
    expect(tokens.size).toBe(1);
  });

  it('refuses a remembered token once it expires (J0002), as without the memory', () => {
    jest.useFakeTimers({ now: new Date('2026-11-24T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
    const tokens = new VerifiedTokens(keys.publicKey);
    const header = bearer(signAccessToken({ ...claims, userId: 903 }, keys.privateKey, 60));
    expect(tokens.check(header)?.userId).toBe(903);
    jest.setSystemTime(new Date('2026-11-24T10:00:59Z'));
    expect(tokens.check(header)?.userId).toBe(903);
    jest.setSystemTime(new Date('2026-11-24T10:01:00Z'));
    expect(codeOf(() => tokens.check(header))).toBe('J0002');
    expect(codeOf(() => tokens.check(header))).toBe('J0002');
    expect(tokens.size).toBe(0);
  });

  it('keeps at most maxEntries headers, the least recently used going first', () => {
    const tokens = new VerifiedTokens(keys.publicKey, 2);
    const headers = [1, 2, 3].map((userId) => bearer(signAccessToken({ ...claims, userId }, keys.privateKey)));
    for (const header of headers) tokens.check(header);
    expect(tokens.size).toBe(2);
    const verify = jest.spyOn(jwt, 'verify');
    tokens.check(headers[2]);
    expect(verify).toHaveBeenCalledTimes(0);
    tokens.check(headers[0]);
    expect(verify).toHaveBeenCalledTimes(1);
  });
});

describe('verifyAccessJwt', () => {
  it('verifies the signature on every call (the reissue flow and tests see no memory)', () => {
    const token = signAccessToken(claims, keys.privateKey);
    const verify = jest.spyOn(jwt, 'verify');
    for (let i = 0; i < 3; i++) expect(verifyAccessJwt(token, keys.publicKey)).toEqual(claims);
    expect(verify).toHaveBeenCalledTimes(3);
  });
});

describe('ES256 signatures: only the low-S form is accepted (issue 34)', () => {
  const ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
  /** The same token with its signature's S in the given half: (r, s) and (r, n - s) both verify as ECDSA. */
  const withS = (token: string, half: 'low' | 'high'): string => {
    const [header, payload, signature] = token.split('.');
    const raw = Buffer.from(signature, 'base64url');
    const s = BigInt(`0x${raw.subarray(32).toString('hex')}`);
    const other = ORDER - s;
    const pick = half === 'high' ? (s > other ? s : other) : s < other ? s : other;
    const sBytes = Buffer.from(pick.toString(16).padStart(64, '0'), 'hex');
    return `${header}.${payload}.${Buffer.concat([raw.subarray(0, 32), sBytes]).toString('base64url')}`;
  };

  it('refuses the high-S twin of a valid token with J0001, in the verifier and in the memory of headers', () => {
    for (let i = 0; i < 8; i++) {
      const token = signAccessToken({ ...claims, userId: 910 + i }, keys.privateKey);
      const high = withS(token, 'high');
      const low = withS(token, 'low');
      expect(high).not.toBe(low);
      expect(verifyAccessJwt(low, keys.publicKey).userId).toBe(910 + i);
      expect(codeOf(() => verifyAccessJwt(high, keys.publicKey))).toBe('J0001');
      const tokens = new VerifiedTokens(keys.publicKey);
      expect(tokens.check(bearer(low))?.userId).toBe(910 + i);
      expect(codeOf(() => tokens.check(bearer(high)))).toBe('J0001');
      expect(codeOf(() => new VerifiedTokens(keys.publicKey).check(bearer(high)))).toBe('J0001');
    }
  });

  it('signs every token in the low-S form (OpenSSL picks either at random)', () => {
    for (let i = 0; i < 40; i++) {
      const token = signAccessToken({ ...claims, userId: 920 + i }, keys.privateKey);
      expect(withS(token, 'low')).toBe(token);
    }
  });

  it('lets reissue read a high-S token signed before the rule (acceptHighS), and nothing else', () => {
    const high = withS(signAccessToken(claims, keys.privateKey, -10), 'high');
    expect(verifyAccessJwt(high, keys.publicKey, { ignoreExpiration: true, acceptHighS: true })).toEqual(claims);
    expect(codeOf(() => verifyAccessJwt(high, keys.publicKey, { ignoreExpiration: true }))).toBe('J0001');
  });
});
