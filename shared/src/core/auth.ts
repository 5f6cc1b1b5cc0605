/**
 * Who is calling: the claims every handler sees, verifying a member's token against the accounts service's keys
 * (one key or a published key set, rotated without a restart), and refusing writes by a suspended member.
 */
import { generateKeyPairSync, createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { AppError } from './wire';

export const Authorities = ['USER', 'ADMIN'] as const;
export const UserTypes = ['NONE', 'AGENT', 'WEB', 'SERVER'] as const;
export type Authority = (typeof Authorities)[number];
export type UserType = (typeof UserTypes)[number];

/** Who is calling, as every handler sees it. */
export interface AuthClaims {
  userId: number;
  userName: string;
  authority: Authority;
  userType: UserType;
  /** The sign-in this token belongs to (claim `sid`): logout and revocation end exactly that session. */
  sessionId?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthClaims;
    }
  }
}

const JWT_ALGORITHM = 'ES256';
export const ACCESS_TOKEN_TTL_SECONDS = 30 * 60;
export const BEARER_PREFIX = 'Bearer ';

const accessPayload = z.object({
  sub: z.string().regex(/^\d+$/),
  userName: z.string(),
  authority: z.enum(Authorities),
  userType: z.enum(UserTypes),
  typ: z.literal('access'),
  // jsonwebtoken checks `exp` only when present: a token without one would never expire, so it is required.
  exp: z.number(),
  sid: z.string().min(1).max(64).optional(),
});

export function generateDevKeyPair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

export function signAccessToken(claims: AuthClaims, privateKey: string, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): string {
  const sid = claims.sessionId === undefined ? {} : { sid: claims.sessionId };
  return withLowS(
    jwt.sign({ userName: claims.userName, authority: claims.authority, userType: claims.userType, typ: 'access', ...sid }, signingKey(privateKey), {
      algorithm: JWT_ALGORITHM,
      keyid: signingKeyId(privateKey),
      subject: String(claims.userId),
      expiresIn: ttlSeconds,
    }),
  );
}

/** The order of P-256's group, and half of it: an ES256 signature (r, s) is accepted only with s <= n/2. */
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
const P256_HALF_ORDER = P256_ORDER >> 1n;
const ES256_PART_BYTES = 32;

/** The JOSE signature (r || s, 32 bytes each) of a compact JWS, or undefined when it is not one. */
function es256Signature(token: string): { r: Buffer; s: bigint } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const raw = Buffer.from(parts[2], 'base64url');
  if (raw.length !== 2 * ES256_PART_BYTES) return undefined;
  return { r: raw.subarray(0, ES256_PART_BYTES), s: BigInt(`0x${raw.subarray(ES256_PART_BYTES).toString('hex')}`) };
}

/**
 * ECDSA signatures are malleable: (r, n - s) verifies wherever (r, s) does, so anyone holding a token can make a
 * second, different text of it (another cache key, another "unique" token) without the key. Only the low-S form
 * is accepted (s <= n/2, as Bitcoin's and Ethereum's rules do); OpenSSL signs either form at random, so
 * `signAccessToken` turns a high S into n - s before handing the token out.
 */
export function hasHighS(token: string): boolean {
  const signature = es256Signature(token);
  return signature !== undefined && signature.s > P256_HALF_ORDER;
}

/** The low-S form of a token's signature (the token itself when it has it): what `signAccessToken` hands out. */
export function withLowS(token: string): string {
  const signature = es256Signature(token);
  if (signature === undefined || signature.s <= P256_HALF_ORDER) return token;
  const low = Buffer.from((P256_ORDER - signature.s).toString(16).padStart(2 * ES256_PART_BYTES, '0'), 'hex');
  const [header, payload] = token.split('.');
  return `${header}.${payload}.${Buffer.concat([signature.r, low]).toString('base64url')}`;
}

/**
 * Verifies a bare JWT against `publicKey` (a PEM or a JWKS document, below); `ignoreExpiration` and
 * `acceptHighS` serve the reissue flow, which accepts an expired access token. A high-S signature is J0001. Every call verifies the signature; `VerifiedTokens` is the
 * memory in front of it for `Authorization` headers.
 */
export function verifyAccessJwt(token: string, publicKey: string, options: { ignoreExpiration?: boolean; acceptHighS?: boolean } = {}): AuthClaims {
  let decoded: unknown;
  try {
    decoded = verifyWithKeySet(token, publicKey, { algorithms: [JWT_ALGORITHM], ignoreExpiration: options.ignoreExpiration ?? false });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw new AppError('J0002');
    if (err instanceof jwt.JsonWebTokenError && err.message === 'invalid signature') throw new AppError('J0001');
    throw new AppError('J0004');
  }
  const payload = accessPayload.safeParse(decoded);
  if (!payload.success) throw new AppError('J0004');
  // A high-S signature is the malleable twin of a valid one: refused as a bad signature. Only reissue, for which
  // the token is a proof of whose refresh cookie it is and never a key, accepts one (tokens signed before the
  // low-S rule: about half of them, for their last 30 minutes).
  if (options.acceptHighS !== true && hasHighS(token)) throw new AppError('J0001');
  const { sub, userName, authority, userType, sid } = payload.data;
  return { userId: Number(sub), userName, authority, userType, ...(sid === undefined ? {} : { sessionId: sid }) };
}

/** Reads an `Authorization` header value: absent -> null; present but not `Bearer <jwt>` -> J0004. */
export function verifyAuthorizationHeader(header: string | undefined, publicKey: string): AuthClaims | null {
  if (header === undefined || header === '') return null;
  if (!header.startsWith(BEARER_PREFIX)) throw new AppError('J0004');
  return verifyAccessJwt(header.slice(BEARER_PREFIX.length).trim(), publicKey);
}

/** `Authorization` headers a process remembers by default (the gateway's `TOKEN_CACHE_SIZE`). */
export const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * `verifyAuthorizationHeader` with a memory: each verified header is remembered with its claims until the token's
 * own expiry, in a bounded LRU, so a member's next requests (one token for up to 30 minutes) cost a map look-up
 * instead of an ES256 verification, in the gateway and in every service. Only successes are kept (a bad token is
 * verified, and refused, every time); the key is the header's exact text, signature included, so an altered
 * token never matches; an entry never outlives the token's `exp`, so an expired token gets J0002 exactly as
 * without the memory. Revocation (`sid`) is checked by the callers on every request as before.
 */
export class VerifiedTokens {
  private readonly verified: LRUCache<string, { claims: AuthClaims; expiresAt: number }>;

  constructor(
    private readonly publicKey: string,
    maxEntries = VERIFIED_TOKENS_KEPT,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.verified = new LRUCache({ max: maxEntries });
  }

  /** The caller a header names: null without one; the J-code AppError of a bad one. */
  check(header: string | undefined): AuthClaims | null {
    if (header === undefined || header === '') return null;
    const known = this.verified.get(header);
    if (known !== undefined) {
      if (known.expiresAt > this.now()) return known.claims;
      this.verified.delete(header);
    }
    const claims = verifyAuthorizationHeader(header, this.publicKey);
    if (!claims) return null;
    const expiresAt = expiryMsOf(header.slice(BEARER_PREFIX.length).trim());
    if (expiresAt !== undefined && expiresAt > this.now()) this.verified.set(header, { claims, expiresAt });
    return claims;
  }

  get size(): number {
    return this.verified.size;
  }
}

/** The `exp` (in ms) of a token that has just been verified (so its payload is well-formed JSON). */
function expiryMsOf(token: string): number | undefined {
  const exp = (jwt.decode(token, { json: true }) ?? {}).exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}

/**
 * Verifies the token (if any) on every request, through the app's `VerifiedTokens`. Services verify it again even
 * behind the gateway: identity never comes from a trusted header.
 */
export function authenticate(publicKey: string): RequestHandler {
  const tokens = new VerifiedTokens(publicKey);
  return (req: Request, _res: Response, next: NextFunction) => {
    req.auth = tokens.check(req.headers.authorization) ?? undefined;
    next();
  };
}

export function isAdmin(claims: AuthClaims | undefined): boolean {
  return claims?.authority === 'ADMIN';
}

/** The caller, or J0000 when the endpoint needs one and no token came. */
export function currentUser(req: Request): AuthClaims {
  if (!req.auth) throw new AppError('J0000');
  return req.auth;
}

export const requireUser: RequestHandler = (req, _res, next) => {
  currentUser(req);
  next();
};

export const requireAdmin: RequestHandler = (req, _res, next) => {
  if (!isAdmin(currentUser(req))) throw new AppError('J0006');
  next();
};

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

/** The statuses that refuse a member's writes. */
export type RefusedStatus = 'SUSPENDED' | 'WITHDRAWN';
/** The same statuses, for queries. */
export const REFUSED_STATUSES: readonly RefusedStatus[] = ['SUSPENDED', 'WITHDRAWN'];

/** The status itself when it refuses writes, otherwise undefined. */
export const refusedStatusOf = (status: string): RefusedStatus | undefined =>
  (REFUSED_STATUSES as readonly string[]).includes(status) ? (status as RefusedStatus) : undefined;

/** Answers whether a user's status refuses writes now, from the service's own store (never a call to accounts). */
export type SuspensionLookup = (userId: number) => Promise<RefusedStatus | undefined>;

/** The methods that change something: what the suspension guard and the member-writes ceiling look at. */
export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses the writes of a suspended member with 403 U0012 and of a withdrawn account with 401 J0004 (its
 * access token belongs to an account that no longer exists), whatever the route. The status is read from the
 * store on each authenticated write: the user projection in every service but accounts (fed
 * by the snapshot event), the users collection in accounts. A withdrawal also revokes the account's sessions
 * (`sessions.revoked`); this guard covers tokens the announcement did not reach. Reads and anonymous requests
 * pass untouched; administrators cannot be suspended.
 */
export function refuseSuspendedWrites(statusOf: SuspensionLookup): RequestHandler {
  return async (req, _res, next) => {
    const claims = req.auth;
    if (claims && WRITE_METHODS.has(req.method) && !isAdmin(claims)) {
      const refused = await statusOf(claims.userId);
      if (refused === 'WITHDRAWN') throw new AppError('J0004');
      if (refused === 'SUSPENDED') throw new AppError('U0012');
    }
    next();
  };
}
