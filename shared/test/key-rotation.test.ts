import { createHash, createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import {
  AppError,
  generateDevKeyPair,
  jwtPublicKeySchema,
  keyId,
  serviceConfigShape,
  signAccessToken,
  signingKeyId,
  verificationKeys,
  verifyAccessJwt,
  withLowS,
} from '../src';

const claims = { userId: 7, userName: 'tester', authority: 'USER' as const, userType: 'NONE' as const };
const oldKeys = generateDevKeyPair();
const newKeys = generateDevKeyPair();

/** A JWKS document of the given public key PEMs, as an operator writes it during a rotation. */
function jwksOf(...publicKeys: string[]): string {
  return JSON.stringify({ keys: publicKeys.map((pem) => ({ ...createPublicKey(pem).export({ format: 'jwk' }), use: 'sig', alg: 'ES256' })) });
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return 'accepted';
}

const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { kid?: string; alg: string };

describe('access-token key rotation', () => {
  it("names the signing key in the header's kid: the RFC 7638 thumbprint of its public key", () => {
    const token = signAccessToken(claims, newKeys.privateKey);
    const kid = headerOf(token).kid;
    expect(kid).toBe(keyId(createPublicKey(newKeys.publicKey)));
    expect(kid).toBe(signingKeyId(newKeys.privateKey));
    // RFC 7638 §3.1 on a fixed key: {"crv","kty","x","y"} in that order, SHA-256, base64url.
    const known = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' },
      format: 'jwk',
    });
    const canonical = '{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}';
    expect(keyId(known)).toBe(createHash('sha256').update(canonical).digest('base64url'));
  });

  it('accepts a token of any key in the set, old and new, and refuses one of a key the set lacks', () => {
    const both = jwksOf(oldKeys.publicKey, newKeys.publicKey);
    const byOld = signAccessToken(claims, oldKeys.privateKey);
    const byNew = signAccessToken(claims, newKeys.privateKey);
    expect(verifyAccessJwt(byOld, both)).toMatchObject(claims);
    expect(verifyAccessJwt(byNew, both)).toMatchObject(claims);
    // The old key dropped (after the last of its tokens expired): its tokens are a bad signature.
    expect(codeOf(() => verifyAccessJwt(byOld, jwksOf(newKeys.publicKey)))).toBe('J0001');
    expect(codeOf(() => verifyAccessJwt(byNew, jwksOf(newKeys.publicKey)))).toBe('accepted');
    // A single PEM stays a set of one.
    expect(codeOf(() => verifyAccessJwt(byOld, oldKeys.publicKey))).toBe('accepted');
    expect(codeOf(() => verifyAccessJwt(byNew, oldKeys.publicKey))).toBe('J0001');
    // An expired token of a known key is still J0002, not a key problem.
    expect(codeOf(() => verifyAccessJwt(signAccessToken(claims, newKeys.privateKey, -10), both))).toBe('J0002');
  });

  it('accepts tokens signed before key ids existed (no kid) by trying each key of the set', () => {
    const legacy = withLowS(jwt.sign({ ...claims, typ: 'access' }, oldKeys.privateKey, { algorithm: 'ES256', subject: '7', expiresIn: 60 }));
    expect(headerOf(legacy).kid).toBeUndefined();
    expect(verifyAccessJwt(legacy, jwksOf(newKeys.publicKey, oldKeys.publicKey))).toMatchObject({ userId: 7 });
    expect(codeOf(() => verifyAccessJwt(legacy, jwksOf(newKeys.publicKey)))).toBe('J0001');
  });

  it('refuses a token whose kid names one key but is signed by another', () => {
    const forged = jwt.sign({ ...claims, typ: 'access' }, oldKeys.privateKey, {
      algorithm: 'ES256',
      subject: '7',
      expiresIn: 60,
      keyid: signingKeyId(newKeys.privateKey),
    });
    expect(codeOf(() => verifyAccessJwt(forged, jwksOf(oldKeys.publicKey, newKeys.publicKey)))).toBe('J0001');
  });

  it('honours a kid the JWKS entry declares itself', () => {
    const declared = JSON.stringify({ keys: [{ ...createPublicKey(newKeys.publicKey).export({ format: 'jwk' }), kid: '2026-11' }] });
    const token = withLowS(jwt.sign({ ...claims, typ: 'access' }, newKeys.privateKey, { algorithm: 'ES256', subject: '7', expiresIn: 60, keyid: '2026-11' }));
    expect(verifyAccessJwt(token, declared)).toMatchObject({ userId: 7 });
    expect(verificationKeys(declared).jwks.keys.map((key) => key.kid)).toEqual(['2026-11']);
  });

  it('publishes only public halves, each with its kid', () => {
    const { jwks } = verificationKeys(jwksOf(oldKeys.publicKey, newKeys.publicKey));
    expect(jwks.keys.map((key) => key.kid)).toEqual([signingKeyId(oldKeys.privateKey), signingKeyId(newKeys.privateKey)]);
    for (const key of jwks.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
  });

  it('config: JWT_PUBLIC_KEY must be an ES256 PEM or a JWKS of public P-256 keys', () => {
    const schema = z.object(serviceConfigShape({ port: 7002, db: 'community' }));
    const problems = (value: string) => {
      const result = jwtPublicKeySchema.safeParse(value);
      return result.success ? [] : result.error.issues.map((issue) => issue.message);
    };
    expect(problems(oldKeys.publicKey)).toEqual([]);
    expect(problems(oldKeys.publicKey.replace(/\n/g, '\\n'))).toEqual([]);
    expect(problems(jwksOf(oldKeys.publicKey, newKeys.publicKey))).toEqual([]);
    expect(problems('pub')).toEqual([expect.stringContaining('neither an ES256 public key PEM nor a JWKS document')]);
    expect(problems('{"keys":[]}')).toEqual([expect.stringContaining('the key set is empty')]);
    const withPrivate = JSON.stringify({ keys: [{ ...createPublicKey(oldKeys.privateKey).export({ format: 'jwk' }), d: 'secret' }] });
    expect(problems(withPrivate)).toEqual([expect.stringContaining('a private key (d) does not belong in the public key set')]);
    const rsa = JSON.stringify({ keys: [{ kty: 'RSA', n: 'AQAB', e: 'AQAB' }] });
    expect(problems(rsa)).toEqual([expect.stringContaining('kty must be EC')]);
    expect(schema.safeParse({ JWT_PUBLIC_KEY: 'pub' }).success).toBe(false);
  });
});
