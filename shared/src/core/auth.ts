import { generateKeyPairSync } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { AppError } from './errors';
import { signingKeyId, verifyWithKeySet } from './jwks';

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

/** PEM keys often arrive through env vars with escaped newlines. */
function normalizePem(pem: string): string {
  return pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem;
}

export function generateDevKeyPair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

export function signAccessToken(claims: AuthClaims, privateKey: string, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): string {
  const sid = claims.sessionId === undefined ? {} : { sid: claims.sessionId };
  return jwt.sign({ userName: claims.userName, authority: claims.authority, userType: claims.userType, typ: 'access', ...sid }, normalizePem(privateKey), {
    algorithm: JWT_ALGORITHM,
    keyid: signingKeyId(privateKey),
    subject: String(claims.userId),
    expiresIn: ttlSeconds,
  });
}

/**
 * Verifies a bare JWT against `publicKey` (a PEM or a JWKS document, see jwks.ts); `ignoreExpiration` serves the
 * reissue flow, which accepts an expired access token.
 */
export function verifyAccessJwt(token: string, publicKey: string, options: { ignoreExpiration?: boolean } = {}): AuthClaims {
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
