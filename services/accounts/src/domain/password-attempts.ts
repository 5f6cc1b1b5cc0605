import { isDuplicateKeyError, TooManyRequestsError } from '@binzip/shared';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';

export const MAX_FAILED_SIGN_INS = 5;
export const SIGN_IN_LOCK_MS = 15 * 60_000;
/**
 * A reservation older than this with the window still full was left by a process that died mid-compare
 * (bcrypt takes well under a second even queued): the window starts again rather than staying shut for good.
 */
export const STALE_RESERVATION_MS = 60_000;

/** 429 C0004 for a locked account; the error handler turns `retryAfterSeconds` into the `Retry-After` header. */
export class SignInLockedError extends TooManyRequestsError {}

type Throttles = AccountsContext['models']['signInThrottles'];

async function ensureThrottle(throttles: Throttles, userId: number): Promise<void> {
  try {
    await throttles.updateOne({ _id: userId }, { $setOnInsert: { attempts: 0, pending: 0, reservedAt: null, lockedUntil: null } }, { upsert: true }).exec();
  } catch (err) {
    // Two first attempts raced to create the document: it exists now, which is all this wanted.
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/**
 * Takes one of the window's MAX_FAILED_SIGN_INS attempt slots with one conditional $inc, before any password is
 * compared: however many guesses arrive at once, on however many instances, at most that many are judged.
 * Refused (429, `Retry-After`) while locked or while every slot is taken.
 */
async function reserveAttempt(ctx: AccountsContext, userId: number): Promise<void> {
  const throttles = ctx.models.signInThrottles;
  await ensureThrottle(throttles, userId);
  for (let tries = 0; tries < 2; tries++) {
    const now = ctx.now();
    const reserved = await throttles
      .findOneAndUpdate(
        { _id: userId, attempts: { $lt: MAX_FAILED_SIGN_INS }, $or: [{ lockedUntil: null }, { lockedUntil: { $lte: now } }] },
        { $inc: { attempts: 1, pending: 1 }, $set: { reservedAt: now, lockedUntil: null } },
        { new: true },
      )
      .lean()
      .exec();
    if (reserved) return;
    const current = await throttles.findById(userId).lean().exec();
    const lockedMs = (current?.lockedUntil?.getTime() ?? 0) - now.getTime();
    if (lockedMs > 0) throw new SignInLockedError(Math.ceil(lockedMs / 1000));
    const stale = current?.reservedAt && now.getTime() - current.reservedAt.getTime() > STALE_RESERVATION_MS;
    if (!current || !stale) break;
    await throttles.updateOne({ _id: userId, reservedAt: current.reservedAt }, { $set: { attempts: 0, pending: 0 } }).exec();
  }
  // Every slot is taken by guesses still being judged or judged wrong: the lock is about to start.
  throw new SignInLockedError(SIGN_IN_LOCK_MS / 1000);
}

/**
 * A wrong password keeps its slot. The last of a full window to be judged locks the account for
 * SIGN_IN_LOCK_MS and empties the window; the condition (full, nothing pending) makes exactly one of them do it.
 */
async function recordWrong(ctx: AccountsContext, userId: number): Promise<void> {
  const throttles = ctx.models.signInThrottles;
  const judged = await throttles
    .findOneAndUpdate({ _id: userId, pending: { $gt: 0 } }, { $inc: { pending: -1 } }, { new: true })
    .lean()
    .exec();
  if (!judged || judged.attempts < MAX_FAILED_SIGN_INS || judged.pending > 0) return;
  const lockedUntil = new Date(ctx.now().getTime() + SIGN_IN_LOCK_MS);
  await throttles.updateOne({ _id: userId, attempts: { $gte: MAX_FAILED_SIGN_INS }, pending: 0 }, { $set: { attempts: 0, lockedUntil } }).exec();
}

/**
 * A right password ends the run of wrong ones (only consecutive wrong passwords lock): alone in the window
 * it empties it; with other guesses still being judged it gives back only its own slot, so a success racing
 * a burst of guesses never reopens the window for more of them.
 */
async function recordRight(ctx: AccountsContext, userId: number): Promise<void> {
  const throttles = ctx.models.signInThrottles;
  const alone = await throttles.updateOne({ _id: userId, pending: 1 }, { $set: { attempts: 0, pending: 0 } }).exec();
  if (alone.matchedCount === 1) return;
  await releaseSlot(ctx, userId);
}

async function releaseSlot(ctx: AccountsContext, userId: number): Promise<void> {
  await ctx.models.signInThrottles.updateOne({ _id: userId, pending: { $gt: 0 }, attempts: { $gt: 0 } }, { $inc: { attempts: -1, pending: -1 } }).exec();
}

/**
 * Judges a password of an existing account under the per-account attempt limit (decisions.md): sign-in,
 * check/password and the profile change's current password share it, so a stolen access token cannot guess
 * the password either. Throws SignInLockedError when no attempt may be judged now.
 */
export async function judgePassword(
  ctx: AccountsContext,
  user: Pick<UserDoc, '_id' | 'passwordHash'>,
  password: string,
  /** Whether the memory of verified passwords holds this one, when the caller has already asked. */
  remembered = ctx.passwords.remembers(password, user.passwordHash),
): Promise<boolean> {
  // A password bcrypt accepted moments ago, on an account with no wrong guesses and no lock, is right without
  // the window's three writes: recordRight would leave the window exactly as it is. Anything else (a lock, a
  // guess being judged, wrong ones to forgive) takes the full path below.
  if (remembered) {
    const window = await ctx.models.signInThrottles.findById(user._id).lean().exec();
    const locked = (window?.lockedUntil?.getTime() ?? 0) > ctx.now().getTime();
    const clean = !window || (window.attempts === 0 && window.pending === 0 && !locked);
    // Counted here only when answered here; otherwise the full path's `matches` counts the one check.
    if (clean && ctx.passwords.acceptRemembered(password, user.passwordHash)) return true;
  }
  await reserveAttempt(ctx, user._id);
  let matches: boolean;
  try {
    matches = await ctx.passwords.matches(password, user.passwordHash);
  } catch (err) {
    // Not judged: the slot goes back.
    await releaseSlot(ctx, user._id);
    throw err;
  }
  await (matches ? recordRight(ctx, user._id) : recordWrong(ctx, user._id));
  return matches;
}
