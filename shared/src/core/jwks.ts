import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';

/**
 * Key rotation: every process accepts access tokens signed by any key of a configured set, so a new key can be
 * added everywhere before accounts signs with it, and the old one dropped once its last token has expired.
 * `JWT_PUBLIC_KEY` holds either one PEM (a set of one) or a JWKS document `{"keys":[…]}`. Tokens name their
 * key in the header's `kid`: the RFC 7638 thumbprint of the public key, which every process derives from the
 * key itself, so no key id has to be configured (a JWKS entry may also carry its own `kid`).
 */

/** The public part of an ES256 key as published in a JWKS. */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface JsonWebKeySet {
  keys: PublicJwk[];
}

const jwkEntry = z.object({
  kty: z.literal('EC', { error: 'kty must be EC (ES256 keys)' }),
  crv: z.literal('P-256', { error: 'crv must be P-256 (ES256 keys)' }),
  x: z.string().min(1),
  y: z.string().min(1),
  d: z.never({ error: 'a private key (d) does not belong in the public key set' }).optional(),
  kid: z.string().min(1).optional(),
  alg: z.literal('ES256').optional(),
  use: z.literal('sig').optional(),
});
const jwksDocument = z.object({ keys: z.array(jwkEntry).min(1, 'the key set is empty') });

/** The RFC 7638 thumbprint of an EC public key (its required members in lexicographic order, SHA-256). */
export function keyId(key: KeyObject): string {
  const { crv, kty, x, y } = key.export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
}

/** PEM keys often arrive through env vars with escaped newlines. */
const normalizePem = (pem: string): string => (pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem);

/** The keys a process accepts, by key id (declared kid and thumbprint both), and the set as published. */
export interface VerificationKeys {
  byId: Map<string, KeyObject>;
  all: KeyObject[];
  jwks: JsonWebKeySet;
}

function parseVerificationKeys(configured: string): VerificationKeys {
  const keys: Array<{ key: KeyObject; kid?: string }> = [];
  if (configured.trim().startsWith('{')) {
    const document = jwksDocument.safeParse(JSON.parse(configured));
    if (!document.success) throw new Error(document.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    for (const { kid, ...jwk } of document.data.keys) keys.push({ key: createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }), kid });
  } else {
    const key = createPublicKey(normalizePem(configured));
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not a P-256 (ES256) key');
    keys.push({ key });
  }
  const byId = new Map<string, KeyObject>();
  const published: PublicJwk[] = [];
  for (const { key, kid } of keys) {
    const thumbprint = keyId(key);
    byId.set(thumbprint, key);
    if (kid) byId.set(kid, key);
    const { x, y } = key.export({ format: 'jwk' });
    published.push({ kty: 'EC', crv: 'P-256', x: x ?? '', y: y ?? '', kid: kid ?? thumbprint, alg: 'ES256', use: 'sig' });
  }
  return { byId, all: keys.map(({ key }) => key), jwks: { keys: published } };
}

/** Parsing keys costs more than verifying a signature, so each configured value is parsed once per process. */
const parsedSets = new Map<string, VerificationKeys>();

/** The accepted keys of a `JWT_PUBLIC_KEY` value (a PEM or a JWKS document); throws on a value that is neither. */
export function verificationKeys(configured: string): VerificationKeys {
  let keys = parsedSets.get(configured);
  if (!keys) {
    keys = parseVerificationKeys(configured);
    parsedSets.set(configured, keys);
  }
  return keys;
}

/** Config schema of `JWT_PUBLIC_KEY`: a process refuses to start with a value it could not verify tokens with. */
export const jwtPublicKeySchema = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      verificationKeys(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `neither an ES256 public key PEM nor a JWKS document: ${err instanceof Error ? err.message : String(err)}` });
    }
  });

const signingKeys = new Map<string, KeyObject>();

/**
 * The private key accounts signs with, parsed once per process: handed a PEM string, jsonwebtoken parses it on
 * every signature (about 5 % of accounts' CPU in the site benchmark's sign-ins).
 */
export function signingKey(privateKeyPem: string): KeyObject {
  let key = signingKeys.get(privateKeyPem);
  if (key === undefined) {
    key = createPrivateKey(normalizePem(privateKeyPem));
    signingKeys.set(privateKeyPem, key);
  }
  return key;
}

const signingKeyIds = new Map<string, string>();

/** The `kid` accounts writes into the tokens it signs with this private key (the thumbprint of its public half). */
export function signingKeyId(privateKeyPem: string): string {
  let kid = signingKeyIds.get(privateKeyPem);
  if (kid === undefined) {
    kid = keyId(createPublicKey(signingKey(privateKeyPem)));
    signingKeyIds.set(privateKeyPem, kid);
  }
  return kid;
}

/** The `kid` of a token's header, when it has one (the token is verified afterwards; this only picks the key). */
function headerKeyId(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { kid?: unknown };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `jwt.verify` against the configured set: the key the token's `kid` names (an unknown `kid` is a bad signature);
 * without a `kid` (tokens signed before key ids existed) each key in turn. Throws jsonwebtoken's errors.
 */
export function verifyWithKeySet(token: string, configured: string, options: jwt.VerifyOptions & { complete?: false }): string | jwt.JwtPayload {
  const keys = verificationKeys(configured);
  const kid = headerKeyId(token);
  const candidates = kid === undefined ? keys.all : [keys.byId.get(kid)].filter((key): key is KeyObject => key !== undefined);
  let failure: unknown = new jwt.JsonWebTokenError('invalid signature');
  for (const key of candidates) {
    try {
      return jwt.verify(token, key, options);
    } catch (err) {
      if (!(err instanceof jwt.JsonWebTokenError && err.message === 'invalid signature')) throw err;
      failure = err;
    }
  }
  throw failure;
}
