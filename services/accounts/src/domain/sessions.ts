import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  AppError,
  BEARER_PREFIX,
  refusedStatusOf,
  revokedSessions,
  sessionsRevoked,
  signAccessToken,
  storedCollection,
  verifyAccessJwt,
  type AuthClaims,
} from '@binzip/shared';
import { REFRESH_TTL_SECONDS, type RefreshTokenDoc, type UserDoc } from '../models';
import type { AccountsContext } from './context';
import { judgePassword } from './password-attempts';
import { findUser } from './user-lookup';

export { REFRESH_TTL_SECONDS };

/** What sign-in and reissue answer; the refresh token goes out as a cookie. */
export interface AccessTokenAnswer {
  access_token: string;
}

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The session id (claim `sid`) is the refresh-token family: one per sign-in, kept through every reissue. */
const claimsOf = (user: UserDoc, familyId: string): AuthClaims => ({
  userId: user._id,
  userName: user.userName,
  authority: user.authority,
  userType: user.userType,
  sessionId: familyId,
});

/** A new session's refresh token and the document that stores it (its hash). */
function newSession(ctx: Pick<AccountsContext, 'now'>, user: UserDoc, familyId: string): { refreshToken: string; stored: RefreshTokenDoc } {
  const refreshToken = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const stored = {
    _id: hashToken(refreshToken),
    userId: user._id,
    familyId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REFRESH_TTL_SECONDS * 1000),
    rotatedAt: null,
    revokedAt: null,
  };
  return { refreshToken, stored };
}

// Every field given in its stored type: written through the driver, without building a mongoose document.
const storeSession = async (ctx: AccountsContext, stored: RefreshTokenDoc): Promise<void> => {
  await storedCollection(ctx.models.refreshTokens).insertOne(stored);
};

const answer = (ctx: AccountsContext, user: UserDoc, session: ReturnType<typeof newSession>): IssuedSession => ({
  accessToken: `${BEARER_PREFIX}${signAccessToken(claimsOf(user, session.stored.familyId), ctx.keys.privateKey)}`,
  refreshToken: session.refreshToken,
});

async function issue(ctx: AccountsContext, user: UserDoc, familyId: string): Promise<IssuedSession> {
  const session = newSession(ctx, user, familyId);
  await storeSession(ctx, session.stored);
  return answer(ctx, user, session);
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
  const session = newSession(ctx, user, randomUUID());
  // A password verified moments ago on an account that is not suspended is nearly always a sign-in that succeeds:
  // its refresh token is stored while the attempt window is read (one round trip less), and taken back if the
  // sign-in is refused after all. Nobody holds that token: it was never answered.
  const remembered = ctx.passwords.remembers(password, user.passwordHash);
  const early = remembered && user.status !== 'SUSPENDED' ? storeSession(ctx, session.stored) : undefined;
  const earlyStored = early?.then(
    () => true,
    () => false,
  );
  try {
    if (!(await judgePassword(ctx, user, password, remembered))) throw new AppError('U0002');
    assertNotSuspended(user);
  } catch (err) {
    // A take-back that fails leaves a live token nobody holds: harmless, and the refusal is what the caller must get.
    if (await earlyStored)
      await ctx.models.refreshTokens
        .deleteOne({ _id: session.stored._id })
        .exec()
        .catch(() => undefined);
    throw err;
  }
  await (early ?? storeSession(ctx, session.stored));
  return answer(ctx, user, session);
}

type SessionsContext = Pick<AccountsContext, 'models' | 'now' | 'eventsPending'>;

/**
 * Records the ending of sessions as one document carrying its `sessions.revoked` (the outbox): the relay
 * publishes it whenever NATS is there, so every process refuses their access tokens within the broker's delivery
 * time, or as soon as the broker is back after an outage. This process refuses them at once.
 */
async function recordRevocation(ctx: SessionsContext, userId: number, sessionIds: readonly string[]): Promise<void> {
  const now = ctx.now();
  const event = sessionsRevoked.outbox({ userId, sessionIds: [...sessionIds], occurredAt: now.toISOString() });
  await ctx.models.sessionRevocations.create({ userId, sessionIds, createdAt: now, pendingEvents: [event] });
  revokedSessions.add(sessionIds);
  ctx.eventsPending();
}

/**
 * Ends sessions of a user: their ids are recorded for every process (above), then their refresh tokens are
 * revoked (reissue: 401). The record goes first because it is the part nothing else could make up for: after a
 * crash (or a failed write) between the two, the request has failed, the refresh tokens are still marked live,
 * but reissue reads the record and refuses them (and completes their revocation), and every process refuses
 * the sessions' access tokens. The other order would leave, after the same crash, revoked refresh tokens whose
 * access tokens no other process ever hears of (valid up to 30 minutes): the loss this record exists to prevent.
 */
export async function endSessions(ctx: SessionsContext, userId: number, which: { familyId?: string | { $ne: string } } = {}): Promise<void> {
  const live = { userId, revokedAt: null, ...which };
  const families = await ctx.models.refreshTokens.distinct('familyId', live).exec();
  // A family already revoked was announced when it was; one revoked meanwhile by a racing request is announced
  // again, which is harmless (the followers add the same ids again).
  const ended = typeof which.familyId === 'string' && !families.includes(which.familyId) ? [...families, which.familyId] : families;
  if (ended.length > 0) await recordRevocation(ctx, userId, ended);
  await ctx.models.refreshTokens.updateMany(live, { $set: { revokedAt: ctx.now() } }).exec();
}

const revokeFamily = (ctx: SessionsContext, userId: number, familyId: string): Promise<void> => endSessions(ctx, userId, { familyId });

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
  if (await ctx.models.sessionRevocations.exists({ sessionIds: stored.familyId }).exec()) {
    // Recorded as ended by a request that stopped before it revoked the refresh tokens: finish its work.
    await tokens.updateMany({ familyId: stored.familyId, revokedAt: null }, { $set: { revokedAt: ctx.now() } }).exec();
    throw new AppError('J0004');
  }
  const now = ctx.now();
  if (stored.rotatedAt && !rotatedWithinRace(stored.rotatedAt, now)) {
    await revokeFamily(ctx, stored.userId, stored.familyId);
    throw new AppError('J0004');
  }
  if (stored.expiresAt.getTime() <= now.getTime()) throw new AppError('J0004');
  const bare = accessToken.startsWith(BEARER_PREFIX) ? accessToken.slice(BEARER_PREFIX.length).trim() : accessToken.trim();
  let claims: AuthClaims;
  try {
    claims = verifyAccessJwt(bare, ctx.keys.publicKey, { ignoreExpiration: true, acceptHighS: true });
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
        await revokeFamily(ctx, stored.userId, stored.familyId);
        throw new AppError('J0004');
      }
    }
  }
  const user = await findUser(ctx, stored.userId).catch(() => {
    throw new AppError('J0004');
  });
  // A suspension or withdrawal revokes every refresh token; one rotated in the same moment must not outlive it.
  if (refusedStatusOf(user.status)) {
    await revokeFamily(ctx, stored.userId, stored.familyId);
    throw new AppError('J0004');
  }
  const session = await issue(ctx, user, stored.familyId);
  // A revocation of the family (logout, reuse, password change) that ran between our read and the insert of
  // the successor did not see the successor: the presented token shows it, so the successor goes too.
  const presented = await tokens.findById(stored._id, { revokedAt: 1 }).lean().exec();
  if (!presented || presented.revokedAt) {
    await revokeFamily(ctx, stored.userId, stored.familyId);
    throw new AppError('J0004');
  }
  return session;
}

/**
 * After a password change: every session of the user ends (refresh tokens revoked, ids announced so their
 * access tokens are refused everywhere) except the caller's own: the family of the presented cookie, when it is
 * the user's, live, and not a token rotated earlier than a race; otherwise the session its access token names.
 */
export async function revokeOtherSessions(ctx: SessionsContext, caller: AuthClaims, callerRefreshToken: string | undefined): Promise<void> {
  const userId = caller.userId;
  const now = ctx.now();
  // Without a usable cookie (the original web client sends none), the access token's session is the caller's.
  let keepFamily: string | undefined = caller.sessionId;
  if (callerRefreshToken) {
    const own = await ctx.models.refreshTokens.findById(hashToken(callerRefreshToken)).lean().exec();
    const live = own && own.userId === userId && !own.revokedAt && own.expiresAt.getTime() > now.getTime();
    if (live && (!own.rotatedAt || rotatedWithinRace(own.rotatedAt, now))) keepFamily = own.familyId;
  }
  await endSessions(ctx, userId, keepFamily === undefined ? {} : { familyId: { $ne: keepFamily } });
}

/**
 * Ends the caller's session: the one its access token names (claim `sid`; the original web client sends no
 * cookie), and the one of the cookie when one is sent and is the caller's. The cookie is cleared anyway.
 */
export async function logout(ctx: AccountsContext, caller: AuthClaims, input: { refreshToken?: string }): Promise<void> {
  const userId = caller.userId;
  if (caller.sessionId !== undefined) await revokeFamily(ctx, userId, caller.sessionId);
  if (!input.refreshToken) return;
  const stored = await ctx.models.refreshTokens.findById(hashToken(input.refreshToken)).lean().exec();
  if (stored && stored.userId === userId && stored.familyId !== caller.sessionId) await revokeFamily(ctx, userId, stored.familyId);
}
