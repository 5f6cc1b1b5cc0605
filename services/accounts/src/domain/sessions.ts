import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, BEARER_PREFIX, signAccessToken, verifyAccessJwt, type AuthClaims } from '@binzip/shared';
import type { UserDoc } from '../models/user';
import type { DomainContext } from './context';
import { assertNotSuspended } from './admin';
import { passwordMatches } from './passwords';
import { findUser } from './users';

export const REFRESH_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface SessionKeys {
  privateKey: string;
  publicKey: string;
}

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const claimsOf = (user: UserDoc): AuthClaims => ({ userId: user._id, userName: user.userName, authority: user.authority, userType: user.userType });

async function issue(ctx: DomainContext, keys: SessionKeys, user: UserDoc, familyId: string): Promise<IssuedSession> {
  const refreshToken = randomBytes(32).toString('base64url');
  const now = ctx.now();
  await ctx.models.refreshTokens.create({
    _id: hashToken(refreshToken),
    userId: user._id,
    familyId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REFRESH_TTL_SECONDS * 1000),
    rotatedAt: null,
    revokedAt: null,
  });
  return { accessToken: `${BEARER_PREFIX}${signAccessToken(claimsOf(user), keys.privateKey)}`, refreshToken };
}

export async function signIn(ctx: DomainContext, keys: SessionKeys, userName: string, password: string): Promise<IssuedSession> {
  const user = await ctx.models.users.findOne({ userName }, { pendingEvents: 0 }).lean<UserDoc>().exec();
  if (!user) throw new AppError('U0001');
  if (!(await passwordMatches(password, user.passwordHash))) throw new AppError('U0002');
  assertNotSuspended(user);
  return issue(ctx, keys, user, randomUUID());
}

async function revokeFamily(ctx: DomainContext, familyId: string): Promise<void> {
  await ctx.models.refreshTokens.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: ctx.now() } }).exec();
}

/**
 * Rotates a refresh token. The cookie must name a live token, and the body's access token (expired is
 * fine, forged is not) must belong to the same user. Presenting an already rotated token means it leaked:
 * the whole family is revoked.
 */
export async function reissue(ctx: DomainContext, keys: SessionKeys, refreshToken: string | undefined, accessToken: string): Promise<IssuedSession> {
  if (!refreshToken) throw new AppError('J0004');
  const tokens = ctx.models.refreshTokens;
  const stored = await tokens.findById(hashToken(refreshToken)).lean().exec();
  if (!stored || stored.revokedAt) throw new AppError('J0004');
  const now = ctx.now();
  if (stored.rotatedAt) {
    await revokeFamily(ctx, stored.familyId);
    throw new AppError('J0004');
  }
  if (stored.expiresAt.getTime() <= now.getTime()) throw new AppError('J0004');
  const bare = accessToken.startsWith(BEARER_PREFIX) ? accessToken.slice(BEARER_PREFIX.length).trim() : accessToken.trim();
  let claims: AuthClaims;
  try {
    claims = verifyAccessJwt(bare, keys.publicKey, { ignoreExpiration: true });
  } catch {
    throw new AppError('J0004');
  }
  if (claims.userId !== stored.userId) throw new AppError('J0004');
  const claimed = await tokens.updateOne({ _id: stored._id, rotatedAt: null, revokedAt: null }, { $set: { rotatedAt: now } }).exec();
  if (claimed.modifiedCount !== 1) {
    // Another request rotated it a moment ago: the same token was used twice.
    await revokeFamily(ctx, stored.familyId);
    throw new AppError('J0004');
  }
  const user = await findUser(ctx, stored.userId).catch(() => {
    throw new AppError('J0004');
  });
  return issue(ctx, keys, user, stored.familyId);
}

/** Revokes the session the cookie belongs to (only the caller's own); no cookie is fine, the cookie is cleared anyway. */
export async function logout(ctx: DomainContext, userId: number, refreshToken: string | undefined): Promise<void> {
  if (!refreshToken) return;
  const stored = await ctx.models.refreshTokens.findById(hashToken(refreshToken)).lean().exec();
  if (stored && stored.userId === userId) await revokeFamily(ctx, stored.familyId);
}
