import { generateKeyPairSync } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
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
  return jwt.sign({ userName: claims.userName, authority: claims.authority, userType: claims.userType, typ: 'access', ...sid }, signingKey(privateKey), {
    algorithm: JWT_ALGORITHM,
    keyid: signingKeyId(privateKey),
    subject: String(claims.userId),
    expiresIn: ttlSeconds,
  });
}

/** Tokens verified lately, by their exact text and the key set that verified them (`verifyAccessJwt`). */
const verifiedTokens = new Map<string, { claims: AuthClaims; exp: number }>();
const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * Verifies a bare JWT against `publicKey` (a PEM or a JWKS document, see jwks.ts); `ignoreExpiration` serves the
 * reissue flow, which accepts an expired access token.
 *
 * A token that verified once is remembered with its claims until it expires (at most VERIFIED_TOKENS_KEPT,
 * oldest first out): a member's requests carry the same token for up to 30 minutes, and an ES256 verification
 * was the largest single cost of a member's read after the store. The key is the token's exact text (its
 * signature included) and the configured key set, so a forged or altered token never matches; expiry is still
 * checked on every use, and revocation (`sid`) is checked by the callers as before.
 */
export function verifyAccessJwt(token: string, publicKey: string, options: { ignoreExpiration?: boolean } = {}): AuthClaims {
  if (options.ignoreExpiration) return verifyAccessJwtNow(token, publicKey, options);
  const memoKey = `${publicKey}\u0000${token}`;
  const known = verifiedTokens.get(memoKey);
  if (known) {
    // jsonwebtoken's rule: expired once the clock's second reaches `exp`.
    if (Math.floor(Date.now() / 1000) < known.exp) return known.claims;
    verifiedTokens.delete(memoKey);
  }
  const claims = verifyAccessJwtNow(token, publicKey, options);
  const exp = expiryOf(token);
  if (exp !== undefined) {
    verifiedTokens.set(memoKey, { claims, exp });
    if (verifiedTokens.size > VERIFIED_TOKENS_KEPT) {
      const oldest = verifiedTokens.keys().next().value;
      if (oldest !== undefined) verifiedTokens.delete(oldest);
    }
  }
  return claims;
}

/** The `exp` of a token that has just been verified (so its payload is well-formed JSON with a numeric `exp`). */
function expiryOf(token: string): number | undefined {
  const exp = (jwt.decode(token, { json: true }) ?? {}).exp;
  return typeof exp === 'number' ? exp : undefined;
}

function verifyAccessJwtNow(token: string, publicKey: string, options: { ignoreExpiration?: boolean }): AuthClaims {
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
  const { sub, userName, authority, userType, sid } = payload.data;
  return { userId: Number(sub), userName, authority, userType, ...(sid === undefined ? {} : { sessionId: sid }) };
}

/** Reads an `Authorization` header value: absent -> null; present but not `Bearer <jwt>` -> J0004. */
export function verifyAuthorizationHeader(header: string | undefined, publicKey: string): AuthClaims | null {
  if (header === undefined || header === '') return null;
  if (!header.startsWith(BEARER_PREFIX)) throw new AppError('J0004');
  return verifyAccessJwt(header.slice(BEARER_PREFIX.length).trim(), publicKey);
}

/**
 * Verifies the token (if any) on every request. Services verify it again even behind the gateway:
 * identity never comes from a trusted header.
 */
export function authenticate(publicKey: string): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    req.auth = verifyAuthorizationHeader(req.headers.authorization, publicKey) ?? undefined;
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
