import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { AppError, FormatMessages, isDuplicateKeyError } from '@binzip/shared';
import { verificationKey, type Channel } from '../models';
import type { AccountsContext } from './context';

export const CODE_TTL_MS = 3 * 60_000;
export const MAX_FAILED_CHECKS = 5;
export const SEND_WINDOW_MS = 10 * 60_000;
export const MAX_SENDS_PER_WINDOW = 5;
export const DAY_WINDOW_MS = 24 * 60 * 60_000;
export const MAX_SENDS_PER_DAY = 10;
// The code length's bounds live with the context's defaults (context.ts), which must not import this module back.
export { DEFAULT_CODE_DIGITS, MAX_CODE_DIGITS, MIN_CODE_DIGITS } from './context';
export const VERIFIED_TTL_MS = 30 * 60_000;

const hashCode = (salt: string, code: string): string => createHash('sha256').update(`${salt}:${code}`).digest('hex');

/**
 * Stores a fresh code for the target and records the send. Two send logs, each pruned to its window, hold
 * at most MAX_SENDS_PER_WINDOW (10 minutes) and MAX_SENDS_PER_DAY (rolling 24 hours) entries: the push is
 * conditional on both last slots being free, so concurrent sends cannot overshoot either limit (a refused
 * upsert surfaces as a duplicate key). With 5 wrong checks per code that is at most 50 guesses a day
 * against 10^VERIFICATION_CODE_DIGITS codes.
 */
async function issueCode(ctx: AccountsContext, channel: Channel, target: string): Promise<string> {
  const key = verificationKey(channel, target);
  const now = ctx.now();
  const verifications = ctx.models.verifications;
  await verifications
    .updateOne(
      { _id: key },
      { $pull: { sends: { $lt: new Date(now.getTime() - SEND_WINDOW_MS) }, dailySends: { $lt: new Date(now.getTime() - DAY_WINDOW_MS) } } },
    )
    .exec();
  // crypto.randomInt is a CSPRNG with no modulo bias.
  const code = String(randomInt(0, 10 ** ctx.codeDigits)).padStart(ctx.codeDigits, '0');
  const salt = randomBytes(16).toString('hex');
  try {
    const result = await verifications
      .updateOne(
        { _id: key, [`sends.${MAX_SENDS_PER_WINDOW - 1}`]: { $exists: false }, [`dailySends.${MAX_SENDS_PER_DAY - 1}`]: { $exists: false } },
        {
          $push: { sends: now, dailySends: now },
          $set: { codeHash: hashCode(salt, code), salt, expiresAt: new Date(now.getTime() + CODE_TTL_MS), failedChecks: 0, used: false },
        },
        { upsert: true },
      )
      .exec();
    if (result.matchedCount === 0 && result.upsertedCount === 0) throw new AppError('C0004');
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new AppError('C0004');
    throw err;
  }
  return code;
}

/** `true` once per code: right code, not expired, not used, fewer than MAX_FAILED_CHECKS wrong tries before. */
async function checkCode(ctx: AccountsContext, channel: Channel, target: string, code: string): Promise<boolean> {
  // The schema admits every length the setting may choose; the format is the length this instance sends.
  if (code.length !== ctx.codeDigits) throw new AppError('C0002', FormatMessages.code);
  const key = verificationKey(channel, target);
  const now = ctx.now();
  const verifications = ctx.models.verifications;
  const doc = await verifications.findById(key).lean().exec();
  if (!doc || !doc.codeHash || !doc.salt || !doc.expiresAt || doc.used) return false;
  if (doc.failedChecks >= MAX_FAILED_CHECKS || doc.expiresAt.getTime() <= now.getTime()) return false;
  const live = { _id: key, codeHash: doc.codeHash, used: false, failedChecks: { $lt: MAX_FAILED_CHECKS } };
  const matches = timingSafeEqual(Buffer.from(hashCode(doc.salt, code), 'hex'), Buffer.from(doc.codeHash, 'hex'));
  if (!matches) {
    await verifications.updateOne(live, { $inc: { failedChecks: 1 } }).exec();
    return false;
  }
  const result = await verifications.updateOne(live, { $set: { used: true, verifiedUntil: new Date(now.getTime() + VERIFIED_TTL_MS) } }).exec();
  return result.modifiedCount === 1;
}

export async function requireVerified(ctx: Pick<AccountsContext, 'models' | 'now'>, channel: Channel, target: string): Promise<void> {
  const doc = await ctx.models.verifications.findById(verificationKey(channel, target), { verifiedUntil: 1 }).lean().exec();
  if (!doc?.verifiedUntil || doc.verifiedUntil.getTime() <= ctx.now().getTime()) throw new AppError('U0011');
}

/** A verification proves one change; the next one needs a new code. */
export async function consumeVerification(ctx: Pick<AccountsContext, 'models'>, channel: Channel, target: string): Promise<void> {
  await ctx.models.verifications.updateOne({ _id: verificationKey(channel, target) }, { $set: { verifiedUntil: null } }).exec();
}

/** Delivery failures become the spec's 500 (C0000), logged here with the cause; the code stays unusable to anyone. */
async function deliver(ctx: AccountsContext, channel: Channel, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    ctx.logger.error('verification delivery failed', { channel, error: (err as Error).message });
    throw new AppError('C0000');
  }
}

export async function sendSmsCode(ctx: AccountsContext, input: { phone_num: string }): Promise<void> {
  const phoneNum = input.phone_num;
  if (await ctx.models.users.exists({ phoneNum }).exec()) throw new AppError('U0000');
  const code = await issueCode(ctx, 'sms', phoneNum);
  await deliver(ctx, 'sms', () => ctx.senders.sms.send(phoneNum, `[빈집] 인증번호는 ${code} 입니다. 3분 안에 입력해주세요.`));
}

export async function sendEmailCode(ctx: AccountsContext, input: { email: string }): Promise<void> {
  const email = input.email;
  if (await ctx.models.users.exists({ email }).exec()) throw new AppError('U0010');
  const code = await issueCode(ctx, 'email', email);
  await deliver(ctx, 'email', () => ctx.senders.mail.send(email, '[빈집] 이메일 인증번호', `인증번호는 ${code} 입니다. 3분 안에 입력해주세요.`));
}

export const checkSmsCode = (ctx: AccountsContext, input: { phone_num: string; code: string }): Promise<boolean> =>
  checkCode(ctx, 'sms', input.phone_num, input.code);
export const checkEmailCode = (ctx: AccountsContext, input: { email: string; code: string }): Promise<boolean> =>
  checkCode(ctx, 'email', input.email, input.code);
