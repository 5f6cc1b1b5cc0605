import { AppError, toIsoOffset, type Authority, type AuthClaims, type UserType } from '@binzip/shared';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import { judgePassword } from './password-attempts';
import type { AgeCode } from './rules';
import { revokeOtherSessions } from './sessions';
import { assertUnique, changeUser, type UserChangeOf } from './user-changes';
import { findUser } from './user-lookup';
import { consumeVerification, requireVerified } from './verification';

/** The spec's user resource (GET /api/v1/users) with decisions.md's suspension and report members. */
export interface UserProfile {
  id: number;
  userName: string;
  nick_name: string;
  phone_num: string;
  authority: Authority;
  age: AgeCode | null;
  profile_image_url: string;
  userType: UserType;
  email: string;
  suspenseReason: string | null;
  reportedAt: string | null;
  agentCode: string | null;
  companyName: string | null;
  companyAddress: string | null;
  companyPhoneNum: string | null;
  agentName: string | null;
  assistantName: string | null;
}

/** PUT /api/v1/users: the current password, and whichever fields change. */
export interface ProfileUpdate {
  password: string;
  nick_name?: string;
  new_password?: string;
  phone_num?: string;
}

/** The refresh cookie that came with a password change: its session survives, every other one ends. */
interface WithSession {
  refreshToken?: string;
}

/** GET /api/v1/users: the caller's own profile, with the default image for a user who has set none. */
export async function myProfile(ctx: AccountsContext, caller: AuthClaims): Promise<UserProfile> {
  return renderUser(await findUser(ctx, caller.userId), ctx.defaultProfileImageUrl);
}

function renderUser(user: UserDoc, defaultProfileImageUrl: string): UserProfile {
  const agent = user.agent;
  return {
    id: user._id,
    userName: user.userName,
    nick_name: user.nickName,
    phone_num: user.phoneNum,
    authority: user.authority,
    age: user.age,
    profile_image_url: user.profileImageUrl ?? defaultProfileImageUrl,
    userType: user.userType,
    email: user.email,
    suspenseReason: user.suspension?.reason ?? null,
    reportedAt: user.reportedAt ? toIsoOffset(user.reportedAt) : null,
    agentCode: agent?.agentCode ?? null,
    companyName: agent?.companyName ?? null,
    companyAddress: agent ? [agent.companyAddress, agent.companyAddressDetail].filter((part) => part).join(' ') : null,
    companyPhoneNum: agent?.companyPhoneNum ?? null,
    agentName: agent?.agentName ?? null,
    assistantName: agent?.assistantName ?? null,
  };
}

export async function checkPassword(ctx: AccountsContext, caller: AuthClaims, input: { password: string }): Promise<boolean> {
  return judgePassword(ctx, await findUser(ctx, caller.userId), input.password);
}

export async function updateNickName(ctx: AccountsContext, caller: AuthClaims, input: { nick_name: string }): Promise<void> {
  const nickName = input.nick_name;
  const userId = caller.userId;
  await changeUser(ctx, 'nickName', userId, async (user) => {
    if (user.nickName === nickName) return undefined;
    await assertUnique(ctx, { nickName }, userId);
    return { nickName };
  });
}

/** Ends every other session of the user (the request's own refresh cookie keeps its session). */
export async function updatePassword(ctx: AccountsContext, caller: AuthClaims, input: { password: string } & WithSession): Promise<void> {
  await changeUser(ctx, 'password', caller.userId, async (user) => {
    if (await ctx.passwords.matches(input.password, user.passwordHash)) throw new AppError('U0006');
    return { passwordHash: await ctx.passwords.hash(input.password) };
  });
  await revokeOtherSessions(ctx, caller, input.refreshToken);
}

/*
 * update/phone and update/email: the own current value is a no-op (send/* refuses registered targets, so it
 * could never be verified). Registered elsewhere is reported before "not verified" for the same reason:
 * a verification for such a target can never exist and U0011 would hide the real reason.
 */
/** A contact field whose change needs a fresh verification of the new value on its channel. */
const VERIFIED_CONTACTS = {
  sms: { kind: 'phone', field: 'phoneNum' },
  email: { kind: 'email', field: 'email' },
} as const;

async function updateVerifiedContact(ctx: AccountsContext, userId: number, channel: keyof typeof VERIFIED_CONTACTS, value: string): Promise<void> {
  const { kind, field } = VERIFIED_CONTACTS[channel];
  let changed = false;
  await changeUser(ctx, kind, userId, async (user) => {
    changed = user[field] !== value;
    if (!changed) return undefined;
    await assertUnique(ctx, { [field]: value }, userId);
    await requireVerified(ctx, channel, value);
    return { [field]: value };
  });
  if (changed) await consumeVerification(ctx, channel, value);
}

export const updatePhone = (ctx: AccountsContext, caller: AuthClaims, input: { phone_num: string }): Promise<void> =>
  updateVerifiedContact(ctx, caller.userId, 'sms', input.phone_num);

export const updateEmail = (ctx: AccountsContext, caller: AuthClaims, input: { email: string }): Promise<void> =>
  updateVerifiedContact(ctx, caller.userId, 'email', input.email);

/**
 * PUT /api/v1/users: the current password proves the caller; each given field follows its own endpoint's rules
 * (a new_password ends the other sessions as update/password does).
 */
export async function updateProfile(ctx: AccountsContext, caller: AuthClaims, input: ProfileUpdate & WithSession): Promise<void> {
  const userId = caller.userId;
  let phoneChanged = false;
  let passwordChanged = false;
  // Judged once, under the attempt limit; the change then lands only on the password hash that was judged.
  const judgedHash = (await findUser(ctx, userId)).passwordHash;
  if (!(await judgePassword(ctx, { _id: userId, passwordHash: judgedHash }, input.password))) throw new AppError('U0002');
  await changeUser(ctx, 'profile', userId, async (user) => {
    // Changed since it was judged (a parallel change): the given password was judged against an old one.
    if (user.passwordHash !== judgedHash) throw new AppError('U0002');
    const change: UserChangeOf<'profile'> = {};
    if (input.nick_name !== undefined && input.nick_name !== user.nickName) {
      await assertUnique(ctx, { nickName: input.nick_name }, userId);
      change.nickName = input.nick_name;
    }
    if (input.new_password !== undefined) {
      if (await ctx.passwords.matches(input.new_password, user.passwordHash)) throw new AppError('U0006');
      change.passwordHash = await ctx.passwords.hash(input.new_password);
    }
    if (input.phone_num !== undefined && input.phone_num !== user.phoneNum) {
      await assertUnique(ctx, { phoneNum: input.phone_num }, userId);
      await requireVerified(ctx, 'sms', input.phone_num);
      change.phoneNum = input.phone_num;
    }
    phoneChanged = change.phoneNum !== undefined;
    passwordChanged = change.passwordHash !== undefined;
    return change;
  });
  if (phoneChanged && input.phone_num) await consumeVerification(ctx, 'sms', input.phone_num);
  if (passwordChanged) await revokeOtherSessions(ctx, caller, input.refreshToken);
}
