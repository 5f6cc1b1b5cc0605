import { AppError, parseWith } from '@binzip/shared';
import type { Channel } from '../models';
import { administratorInput, MANDATORY_TERMS, type AdministratorInput, type AgeCode, type EstateCode, type JoinPathCode, type Term } from './rules';
import { createUser, type NewUser, type UserCreationKind, type UserWriteContext } from './user-changes';
import { consumeVerification, requireVerified } from './verification';

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

function assertTerms(agreed: readonly Term[], mandatory: readonly Term[]): void {
  if (!mandatory.every((term) => agreed.includes(term))) throw new AppError('U0009');
}

/** A contact the sign-up must have had verified (check/sms, check/email) within VERIFIED_TTL_MS. */
type VerifiedContact = [Channel, string];

async function signUp(ctx: UserWriteContext, kind: UserCreationKind, fields: NewUser, verifiedContacts: readonly VerifiedContact[]): Promise<number> {
  // After the format and duplicate checks, so their errors keep their order (a registered phone is U0000 first).
  const user = await createUser(ctx, kind, fields, async () => {
    for (const [channel, target] of verifiedContacts) await requireVerified(ctx, channel, target);
  });
  // A verification proves one sign-up or change; the next one needs a new code.
  for (const [channel, target] of verifiedContacts) await consumeVerification(ctx, channel, target);
  return user._id;
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
  return signUp(ctx, 'memberSignUp', { ...(await memberFields(ctx, input, input.email)), userType: 'NONE', agent: null }, [
    ['sms', input.phone_num],
    ['email', input.email],
  ]);
}

export async function signUpAgent(ctx: UserWriteContext, input: AgentSignUp): Promise<number> {
  assertTerms(input.terms, MANDATORY_TERMS.agent);
  return signUp(
    ctx,
    'agentSignUp',
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
}

/** Administrators never come from sign-up: only from this function (the admin CLI and ADMIN_BOOTSTRAP). */
export async function createAdministrator(ctx: UserWriteContext, raw: unknown): Promise<{ id: number; userName: string }> {
  const input: AdministratorInput = parseWith(administratorInput, raw);
  const user = await createUser(ctx, 'administratorCreation', {
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
