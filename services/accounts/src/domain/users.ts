import {
  AppError,
  CONFLICT,
  isDuplicateKeyError,
  nextId,
  parseWith,
  retryOnConflict,
  toIsoOffset,
  type Authority,
  type AuthClaims,
  type ErrorCode,
  type UserType,
} from '@binzip/shared';
import { userSnapshotEvent } from '../events/user-snapshot';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import {
  administratorInput,
  MANDATORY_TERMS,
  type AdministratorInput,
  type AgeCode,
  type EstateCode,
  type JoinPathCode,
  type Term,
  type WithdrawalReason,
} from './rules';
import { judgePassword } from './password-attempts';
import { revokeOtherSessions } from './sessions';
import { findUser } from './user-lookup';
import { consumeVerification, requireVerified } from './verification';
import type { Channel } from '../models';

/** What creating a user needs; the admin CLI builds only this much (it has no keys or senders). */
export type UserWriteContext = Pick<AccountsContext, 'models' | 'now' | 'eventsPending' | 'passwords'>;

export interface UserSignUp {
  userName: string;
  password: string;
  nick_name: string;
  phone_num: string;
  age: AgeCode;
  join_paths: JoinPathCode[];
  terms: Term[];
  email: string;
}

/** No `email` of its own: the agent's e-mail is `company_email` (the contract's agent body). */
export interface AgentSignUp extends Omit<UserSignUp, 'email'> {
  agent_code: string;
  business_code: string;
  company_name: string;
  agent_name: string;
  company_phone_num: string;
  assistant_name: string | null;
  company_address: string;
  company_address_detail: string;
  company_email: string;
  estate: EstateCode;
}

/** PUT /api/v1/users: the current password, and whichever fields change. */
export interface ProfileUpdate {
  password: string;
  nick_name?: string;
  new_password?: string;
  phone_num?: string;
}

export interface WithdrawalRequest {
  reason: WithdrawalReason[];
  content: string;
}

/** The refresh cookie that came with a password change: its session survives, every other one ends. */
interface WithSession {
  refreshToken?: string;
}

interface UniqueFields {
  userName?: string;
  nickName?: string;
  phoneNum?: string;
  email?: string;
}

/** Checked in this order, so the first clash decides the error (decisions.md: userName, nick_name, phone). */
const UNIQUE_ORDER: Array<[keyof UniqueFields, ErrorCode]> = [
  ['userName', 'U0007'],
  ['nickName', 'U0005'],
  ['phoneNum', 'U0000'],
  ['email', 'U0010'],
];

async function firstClash(ctx: UserWriteContext, fields: UniqueFields, exceptUserId?: number): Promise<ErrorCode | undefined> {
  for (const [field, code] of UNIQUE_ORDER) {
    const value = fields[field];
    if (value === undefined) continue;
    const filter = exceptUserId === undefined ? { [field]: value } : { [field]: value, _id: { $ne: exceptUserId } };
    if (await ctx.models.users.exists(filter).exec()) return code;
  }
  return undefined;
}

async function assertUnique(ctx: UserWriteContext, fields: UniqueFields, exceptUserId?: number): Promise<void> {
  const clash = await firstClash(ctx, fields, exceptUserId);
  if (clash) throw new AppError(clash);
}

/** A unique index fired after the pre-check passed (two requests raced): answer what the pre-check would have. */
async function rethrowDuplicate(ctx: UserWriteContext, err: unknown, fields: UniqueFields, exceptUserId?: number): Promise<never> {
  if (isDuplicateKeyError(err)) {
    const clash = await firstClash(ctx, fields, exceptUserId);
    if (clash) throw new AppError(clash);
  }
  throw err;
}

function assertTerms(agreed: readonly Term[], mandatory: readonly Term[]): void {
  if (!mandatory.every((term) => agreed.includes(term))) throw new AppError('U0009');
}

type NewUser = Omit<UserDoc, '_id' | 'version' | 'createdAt' | 'updatedAt' | 'pendingEvents' | 'status' | 'profileImageUrl' | 'withdrawal'>;

/** A contact the sign-up must have had verified (check/sms, check/email) within VERIFIED_TTL_MS. */
type VerifiedContact = [Channel, string];

async function insertUser(ctx: UserWriteContext, fields: NewUser, verifiedContacts: readonly VerifiedContact[] = []): Promise<UserDoc> {
  const unique = { userName: fields.userName, nickName: fields.nickName, phoneNum: fields.phoneNum, email: fields.email };
  await assertUnique(ctx, unique);
  // After the format and duplicate checks, so their errors keep their order (a registered phone is U0000 first).
  for (const [channel, target] of verifiedContacts) await requireVerified(ctx, channel, target);
  const now = ctx.now();
  const user: Omit<UserDoc, 'pendingEvents'> = {
    ...fields,
    _id: await nextId(ctx.models.users.db, 'user'),
    status: 'ACTIVE',
    profileImageUrl: null,
    withdrawal: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.models.users.create({ ...user, pendingEvents: [userSnapshotEvent(user, now)] });
  } catch (err) {
    await rethrowDuplicate(ctx, err, unique);
  }
  ctx.eventsPending();
  // A verification proves one sign-up or change; the next one needs a new code.
  for (const [channel, target] of verifiedContacts) await consumeVerification(ctx, channel, target);
  return { ...user, pendingEvents: [] };
}

/** What a general user's and an agent's sign-up store alike. */
async function memberFields(ctx: UserWriteContext, input: Omit<UserSignUp, 'email'>, email: string) {
  return {
    userName: input.userName,
    passwordHash: await ctx.passwords.hash(input.password),
    nickName: input.nick_name,
    phoneNum: input.phone_num,
    email,
    age: input.age,
    joinPaths: input.join_paths,
    terms: input.terms,
    authority: 'USER' as const,
  };
}

export async function signUpUser(ctx: UserWriteContext, input: UserSignUp): Promise<number> {
  assertTerms(input.terms, MANDATORY_TERMS.user);
  const user = await insertUser(ctx, { ...(await memberFields(ctx, input, input.email)), userType: 'NONE', agent: null }, [
    ['sms', input.phone_num],
    ['email', input.email],
  ]);
  return user._id;
}

export async function signUpAgent(ctx: UserWriteContext, input: AgentSignUp): Promise<number> {
  assertTerms(input.terms, MANDATORY_TERMS.agent);
  const user = await insertUser(
    ctx,
    {
      ...(await memberFields(ctx, input, input.company_email)),
      userType: 'AGENT',
      agent: {
        agentCode: input.agent_code,
        businessCode: input.business_code,
        companyName: input.company_name,
        companyAddress: input.company_address,
        companyAddressDetail: input.company_address_detail,
        companyEmail: input.company_email,
        companyPhoneNum: input.company_phone_num,
        agentName: input.agent_name,
        assistantName: input.assistant_name,
        estate: input.estate,
      },
    },
    [['sms', input.phone_num]],
  );
  return user._id;
}

/** Administrators never come from sign-up: only from this function (the admin CLI and ADMIN_BOOTSTRAP). */
export async function createAdministrator(ctx: UserWriteContext, raw: unknown): Promise<{ id: number; userName: string }> {
  const input: AdministratorInput = parseWith(administratorInput, raw);
  const user = await insertUser(ctx, {
    userName: input.userName,
    passwordHash: await ctx.passwords.hash(input.password),
    nickName: input.nick_name,
    phoneNum: input.phone_num,
    email: input.email,
    age: null,
    joinPaths: [],
    terms: [],
    authority: 'ADMIN',
    userType: input.userType,
    agent: null,
  });
  return { id: user._id, userName: user.userName };
}

/** Creates each administrator whose userName is not taken yet; existing accounts are left as they are. */
export async function bootstrapAdministrators(ctx: UserWriteContext, seeds: readonly unknown[]): Promise<number[]> {
  const created: number[] = [];
  for (const seed of seeds) {
    const userName = (seed as { userName?: unknown }).userName;
    if (typeof userName === 'string' && (await ctx.models.users.exists({ userName }).exec())) continue;
    created.push((await createAdministrator(ctx, seed)).id);
  }
  return created;
}

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

export async function isUserNameAvailable(ctx: AccountsContext, input: { userName: string }): Promise<boolean> {
  return !(await ctx.models.users.exists({ userName: input.userName }).exec());
}

export async function isNickNameAvailable(ctx: AccountsContext, input: { nick_name: string }): Promise<boolean> {
  return !(await ctx.models.users.exists({ nickName: input.nick_name }).exec());
}

export async function checkPassword(ctx: AccountsContext, caller: AuthClaims, input: { password: string }): Promise<boolean> {
  return judgePassword(ctx, await findUser(ctx, caller.userId), input.password);
}

/**
 * Every lost compare-and-set means another change of this user landed, so N concurrent changes settle in at
 * most N attempts; beyond this the caller is told to retry (429 C0004), never a 500.
 */
const MAX_CHANGE_ATTEMPTS = 32;

type UserChange = Partial<Pick<UserDoc, 'nickName' | 'passwordHash' | 'phoneNum' | 'email' | 'status' | 'withdrawal'>>;

/**
 * Applies a change computed from the current document. A change that touches the published snapshot goes
 * out with a new version and its event in the same single-document update (compare-and-set on version, so
 * versions never repeat); other changes are a plain update. Both writes also require the password hash the
 * change was computed from: a decision that checked the (current or same-as-new) password must not land
 * after the password changed, so parallel double submissions answer as sequential ones do (U0002, U0006).
 */
async function changeUser(ctx: AccountsContext, userId: number, compute: (user: UserDoc) => Promise<UserChange | undefined>): Promise<void> {
  await retryOnConflict(
    async () => {
      const user = await findUser(ctx, userId);
      // A completed withdrawal is final: no change may bring the erased account back (its token is refused).
      if (user.status === 'WITHDRAWN') throw new AppError('J0004');
      const change = await compute(user);
      if (!change || Object.keys(change).length === 0) return;
      const now = ctx.now();
      const snapshotChanges =
        (change.nickName !== undefined && change.nickName !== user.nickName) || (change.status !== undefined && change.status !== user.status);
      const unique = { nickName: change.nickName, phoneNum: change.phoneNum, email: change.email };
      try {
        if (!snapshotChanges) {
          const result = await ctx.models.users.updateOne({ _id: userId, passwordHash: user.passwordHash }, { $set: { ...change, updatedAt: now } }).exec();
          return result.matchedCount === 1 ? undefined : CONFLICT;
        }
        const next = { ...user, ...change, version: user.version + 1 };
        const result = await ctx.models.users
          .updateOne(
            { _id: userId, version: user.version, passwordHash: user.passwordHash },
            { $set: { ...change, version: next.version, updatedAt: now }, $push: { pendingEvents: userSnapshotEvent(next, now) } },
          )
          .exec();
        if (result.matchedCount !== 1) return CONFLICT;
        ctx.eventsPending();
      } catch (err) {
        await rethrowDuplicate(ctx, err, unique, userId);
      }
    },
    { attempts: MAX_CHANGE_ATTEMPTS },
  );
}

export async function updateNickName(ctx: AccountsContext, caller: AuthClaims, input: { nick_name: string }): Promise<void> {
  const nickName = input.nick_name;
  const userId = caller.userId;
  await changeUser(ctx, userId, async (user) => {
    if (user.nickName === nickName) return undefined;
    await assertUnique(ctx, { nickName }, userId);
    return { nickName };
  });
}

/** Ends every other session of the user (the request's own refresh cookie keeps its session). */
export async function updatePassword(ctx: AccountsContext, caller: AuthClaims, input: { password: string } & WithSession): Promise<void> {
  await changeUser(ctx, caller.userId, async (user) => {
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
const VERIFIED_CONTACTS = { sms: 'phoneNum', email: 'email' } as const;

async function updateVerifiedContact(ctx: AccountsContext, userId: number, channel: keyof typeof VERIFIED_CONTACTS, value: string): Promise<void> {
  const field = VERIFIED_CONTACTS[channel];
  let changed = false;
  await changeUser(ctx, userId, async (user) => {
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
  await changeUser(ctx, userId, async (user) => {
    // Changed since it was judged (a parallel change): the given password was judged against an old one.
    if (user.passwordHash !== judgedHash) throw new AppError('U0002');
    const change: UserChange = {};
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

export async function requestWithdrawal(ctx: AccountsContext, caller: AuthClaims, input: WithdrawalRequest): Promise<void> {
  await changeUser(ctx, caller.userId, async (user) => {
    if (user.status !== 'ACTIVE') throw new AppError('U0008');
    return { status: 'WITHDRAWAL_REQUESTED', withdrawal: { reasons: input.reason, content: input.content, requestedAt: ctx.now() } };
  });
}
