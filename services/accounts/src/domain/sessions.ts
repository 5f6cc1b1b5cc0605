import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, BEARER_PREFIX, signAccessToken, verifyAccessJwt, type AuthClaims } from '@binzip/shared';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import { judgePassword } from './password-attempts';
import { findUser } from './user-lookup';

export const REFRESH_TTL_SECONDS = 7 * 24 * 60 * 60;

/** What sign-in and reissue answer; the refresh token goes out as a cookie. */
export interface AccessTokenAnswer {
  access_token: string;
}

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const claimsOf = (user: UserDoc): AuthClaims => ({ userId: user._id, userName: user.userName, authority: user.authority, userType: user.userType });

async function issue(ctx: AccountsContext, user: UserDoc, familyId: string): Promise<IssuedSession> {
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
  return { accessToken: `${BEARER_PREFIX}${signAccessToken(claimsOf(user), ctx.keys.privateKey)}`, refreshToken };
}

/** Sign-in's refusal of a suspended account, checked after the password so it tells nothing to a guesser. */
function assertNotSuspended(user: Pick<UserDoc, 'status'>): void {
  if (user.status === 'SUSPENDED') throw new AppError('U0012');
}

/**
 * Throttled per account, not per address (decisions.md): a locked account refuses even the right password,
 * and the state is in MongoDB so every instance, path spelling and X-Forwarded-For sees the same lock.
 */
export async function signIn(ctx: AccountsContext, input: { userName: string; password: string }): Promise<IssuedSession> {
  const { userName, password } = input;
  const user = await ctx.models.users.findOne({ userName }, { pendingEvents: 0 }).lean<UserDoc>().exec();
  if (!user) throw new AppError('U0001');
  if (!(await judgePassword(ctx, user, password))) throw new AppError('U0002');
  assertNotSuspended(user);
  return issue(ctx, user, randomUUID());
}

async function revokeFamily(ctx: AccountsContext, familyId: string): Promise<void> {
  await ctx.models.refreshTokens.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: ctx.now() } }).exec();
}

/**
 * Two reissues with one cookie this close together are a browser's tabs racing, not a stolen copy
 * (decisions.md): the later one gets a sibling token in the same family.
 */
export const REISSUE_RACE_WINDOW_MS = 2_000;

const rotatedWithinRace = (rotatedAt: Date, now: Date): boolean => now.getTime() - rotatedAt.getTime() <= REISSUE_RACE_WINDOW_MS;

/**
 * Rotates a refresh token. The cookie must name a live token, and the body's access token (expired is
 * fine, forged is not) must belong to the same user. Presenting an already rotated token more than
 * REISSUE_RACE_WINDOW_MS after its rotation means it leaked: the whole family is revoked. Within the window
 * it is the loser of a race and gets its own successor (a sibling of the winner's), so neither tab is logged out.
 */
export async function reissue(ctx: AccountsContext, input: { refreshToken?: string; access_token: string }): Promise<IssuedSession> {
  const { refreshToken, access_token: accessToken } = input;
  if (!refreshToken) throw new AppError('J0004');
  const tokens = ctx.models.refreshTokens;
  const stored = await tokens.findById(hashToken(refreshToken)).lean().exec();
  if (!stored || stored.revokedAt) throw new AppError('J0004');
  const now = ctx.now();
  if (stored.rotatedAt && !rotatedWithinRace(stored.rotatedAt, now)) {
    await revokeFamily(ctx, stored.familyId);
    throw new AppError('J0004');
  }
  if (stored.expiresAt.getTime() <= now.getTime()) throw new AppError('J0004');
  const bare = accessToken.startsWith(BEARER_PREFIX) ? accessToken.slice(BEARER_PREFIX.length).trim() : accessToken.trim();
  let claims: AuthClaims;
  try {
    claims = verifyAccessJwt(bare, ctx.keys.publicKey, { ignoreExpiration: true });
  } catch {
    throw new AppError('J0004');
  }
  if (claims.userId !== stored.userId) throw new AppError('J0004');
  if (!stored.rotatedAt) {
    const claimed = await tokens.updateOne({ _id: stored._id, rotatedAt: null, revokedAt: null }, { $set: { rotatedAt: now } }).exec();
    if (claimed.modifiedCount !== 1) {
      // Lost the rotation to a request that read the token at the same moment: a race if that was just
      // now, J0004 (family left alone) if the token was revoked meanwhile by a logout or password change.
      const current = await tokens.findById(stored._id).lean().exec();
      if (!current || current.revokedAt) throw new AppError('J0004');
      if (!current.rotatedAt || !rotatedWithinRace(current.rotatedAt, now)) {
        await revokeFamily(ctx, stored.familyId);
        throw new AppError('J0004');
      }
    }
  }
  const user = await findUser(ctx, stored.userId).catch(() => {
    throw new AppError('J0004');
  });
  // A suspension revokes every refresh token; one rotated in the same moment must not outlive it.
  if (user.status === 'SUSPENDED') {
    await revokeFamily(ctx, stored.familyId);
    throw new AppError('J0004');
  }
  const session = await issue(ctx, user, stored.familyId);
  // A revocation of the family (logout, reuse, password change) that ran between our read and the insert of
  // the successor did not see the successor: the presented token shows it, so the successor goes too.
  const presented = await tokens.findById(stored._id, { revokedAt: 1 }).lean().exec();
  if (!presented || presented.revokedAt) {
    await revokeFamily(ctx, stored.familyId);
    throw new AppError('J0004');
  }
  return session;
}

/**
 * After a password change: every refresh token of the user is revoked except the caller's own session (the
 * family of the presented cookie, when it is the user's, live, and not a token rotated earlier than a race).
 * Without a usable cookie every session ends. Access tokens already issued run out on their own (30 min).
 */
export async function revokeOtherSessions(ctx: Pick<AccountsContext, 'models' | 'now'>, userId: number, callerRefreshToken: string | undefined): Promise<void> {
  const now = ctx.now();
  let keepFamily: string | undefined;
  if (callerRefreshToken) {
    const own = await ctx.models.refreshTokens.findById(hashToken(callerRefreshToken)).lean().exec();
    const live = own && own.userId === userId && !own.revokedAt && own.expiresAt.getTime() > now.getTime();
    if (live && (!own.rotatedAt || rotatedWithinRace(own.rotatedAt, now))) keepFamily = own.familyId;
  }
  const others = keepFamily === undefined ? { userId, revokedAt: null } : { userId, revokedAt: null, familyId: { $ne: keepFamily } };
  await ctx.models.refreshTokens.updateMany(others, { $set: { revokedAt: now } }).exec();
}

/** Revokes the session the cookie belongs to (only the caller's own); no cookie is fine, the cookie is cleared anyway. */
export async function logout(ctx: AccountsContext, caller: AuthClaims, input: { refreshToken?: string }): Promise<void> {
  const { refreshToken } = input;
  const userId = caller.userId;
  if (!refreshToken) return;
  const stored = await ctx.models.refreshTokens.findById(hashToken(refreshToken)).lean().exec();
  if (stored && stored.userId === userId) await revokeFamily(ctx, stored.familyId);
}
