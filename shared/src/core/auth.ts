import { generateKeyPairSync } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { AppError } from './errors';
import { signingKey, signingKeyId, verifyWithKeySet } from './jwks';

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
 * Verifies a bare JWT against `publicKey` (a PEM or a JWKS document, see jwks.ts); `ignoreExpiration` and
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
