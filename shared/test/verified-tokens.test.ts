import jwt from 'jsonwebtoken';
import { AppError, generateDevKeyPair, signAccessToken, verifyAccessJwt, type AuthClaims } from '../src';

const keys = generateDevKeyPair();
const otherKeys = generateDevKeyPair();
const claims: AuthClaims = { userId: 901, userName: 'memo901', authority: 'USER', userType: 'NONE', sessionId: 'memo-session' };

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

describe('verifyAccessJwt remembers tokens it verified', () => {
  it('verifies the signature once per token: later uses are answered from memory with the same claims', () => {
    const token = signAccessToken({ ...claims, userId: 902 }, keys.privateKey);
    const verify = jest.spyOn(jwt, 'verify');
    expect(verifyAccessJwt(token, keys.publicKey)).toEqual({ ...claims, userId: 902 });
    expect(verifyAccessJwt(token, keys.publicKey)).toEqual({ ...claims, userId: 902 });
    expect(verifyAccessJwt(token, keys.publicKey)).toEqual({ ...claims, userId: 902 });
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('still refuses an altered copy of a remembered token, and the same token under a key set without its key', () => {
    const token = signAccessToken(claims, keys.privateKey);
    verifyAccessJwt(token, keys.publicKey);
    const [header, payload, signature] = token.split('.');
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(codeOf(() => verifyAccessJwt(flipped, keys.publicKey))).toMatch(/^J000[14]$/);
    const forgedPayload = Buffer.from(JSON.stringify({ ...jwt.decode(token, { json: true }), sub: '1' })).toString('base64url');
    expect(codeOf(() => verifyAccessJwt(`${header}.${forgedPayload}.${signature}`, keys.publicKey))).toMatch(/^J000[14]$/);
    expect(codeOf(() => verifyAccessJwt(token, otherKeys.publicKey))).toMatch(/^J000[14]$/);
  });

  it('refuses a remembered token once it expires (J0002), as without the memory', () => {
    jest.useFakeTimers({ now: new Date('2026-11-24T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] });
    const token = signAccessToken({ ...claims, userId: 903 }, keys.privateKey, 60);
    expect(verifyAccessJwt(token, keys.publicKey).userId).toBe(903);
    jest.setSystemTime(new Date('2026-11-24T10:00:59Z'));
    expect(verifyAccessJwt(token, keys.publicKey).userId).toBe(903);
    jest.setSystemTime(new Date('2026-11-24T10:01:00Z'));
    expect(codeOf(() => verifyAccessJwt(token, keys.publicKey))).toBe('J0002');
    expect(codeOf(() => verifyAccessJwt(token, keys.publicKey))).toBe('J0002');
  });
});
