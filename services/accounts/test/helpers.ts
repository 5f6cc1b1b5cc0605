import type { CeilingSettings } from '@binzip/shared';
import type { Express } from 'express';
import request from 'supertest';
import { testEnv } from '../../../test/support';
import { startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { buildApp, type AppDeps } from '../src/service';
import { accountsContext, type AccountsContext } from '../src/domain/context';
import { LocalMailSender, LocalSmsSender, type MailSender, type SmsSender } from '../src/domain/senders';
import { createAdministrator } from '../src/domain/sign-up';
import { accountsModels, initModels, type AccountsModels } from '../src/models';

/** bcrypt's lowest cost: sign-ups in tests hash in about a millisecond. */
export const TEST_BCRYPT_COST = 4;

/**
 * The shared service harness with what accounts adds: the senders (recording ones unless a test brings its
 * own), the token keys and a cheap bcrypt cost. Accounts' members are real sign-ups, not projection snapshots.
 */
export interface AccountsHarness extends ServiceHarness<AccountsModels> {
  /** The context the app's use-cases get: the harness's models, clock and outbox kicks, plus accounts' own parts. */
  ctx: AccountsContext;
  /** Every SMS and e-mail the recording senders delivered (codes are read from here). */
  sms: LocalSmsSender;
  mail: LocalMailSender;
  /** Sets the clock to `ms` after the harness started; 0 puts it back. */
  clockAt(ms: number): void;
}

export interface AccountsHarnessOptions {
  smsSender?: SmsSender;
  mailSender?: MailSender;
  defaultProfileImageUrl?: string;
  codeDigits?: number;
  /** Replaces the harness's counting kick, e.g. with an outbox relay's. */
  eventsPending?: () => void;
  /** `CEILING_*` counts (none unless given). */
  ceilings?: CeilingSettings;
}

export async function startAccountsHarness(label: string, options: AccountsHarnessOptions = {}): Promise<AccountsHarness> {
  const sms = new LocalSmsSender(undefined);
  const mail = new LocalMailSender(undefined);
  const extra = {
    privateKey: testEnv().privateKey,
    senders: { sms: options.smsSender ?? sms, mail: options.mailSender ?? mail },
    bcryptCost: TEST_BCRYPT_COST,
    defaultProfileImageUrl: options.defaultProfileImageUrl,
    codeDigits: options.codeDigits,
    // The kick is one of the base deps; a relay's replaces the harness's counter.
    ...(options.eventsPending ? { eventsPending: options.eventsPending } : {}),
  };
  const started = new Date();
  const h = await startServiceHarness<AccountsModels, AppDeps>(
    label,
    { models: accountsModels, initModels, buildApp },
    { extra, clockStart: started, ceilings: options.ceilings },
  );
  const ctx = accountsContext(h.models, {
    ...h.ctx,
    ...extra,
    keys: { privateKey: extra.privateKey, publicKey: testEnv().publicKey },
  });
  recordingSenders.set(h.app, { sms, mail });
  return { ...h, ctx, sms, mail, clockAt: (ms) => h.clock.set(new Date(started.getTime() + ms)) };
}

/** The recording senders behind each harness's app, so `signUp(app, ...)` can read the codes it asks for. */
const recordingSenders = new WeakMap<Express, { sms: LocalSmsSender; mail: LocalMailSender }>();

/**
 * Verifies a sign-up body's contacts the way the site's client does before it signs up: a code sent to the
 * phone (and, for a member, the e-mail) and checked. Sign-up refuses unverified contacts (U0011).
 */
export async function verifyContacts(app: Express, body: Record<string, unknown>): Promise<void> {
  const senders = recordingSenders.get(app);
  if (!senders) throw new Error('verifyContacts: not the app of an accounts harness');
  const verify = async (channel: 'sms' | 'email', field: 'phone_num' | 'email', target: unknown) => {
    const sent = await request(app)
      .post(`/api/v1/users/send/${channel}`)
      .send({ [field]: target });
    if (sent.status !== 200) throw new Error(`send/${channel} failed: ${sent.status} ${JSON.stringify(sent.body)}`);
    // Addresses are stored and mailed in lower case.
    const code = lastCode(channel === 'sms' ? senders.sms : senders.mail, channel === 'sms' ? String(target) : String(target).toLowerCase());
    const checked = await request(app)
      .post(`/api/v1/users/check/${channel}`)
      .send({ [field]: target, code });
    if (checked.body.data !== true) throw new Error(`check/${channel} failed: ${checked.status} ${JSON.stringify(checked.body)}`);
  };
  await verify('sms', 'phone_num', body.phone_num);
  if (body.email !== undefined) await verify('email', 'email', body.email);
}

let counter = 0;
/** A valid, unique general-user sign-up body. */
export function userBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const n = `${process.pid % 1000}${counter}`.padStart(6, '0');
  return {
    userName: `user_${n}`,
    password: 'Passw0rd!',
    nick_name: `닉네임${n}`,
    phone_num: `0109${n.slice(-7).padStart(7, '0')}`,
    age: '30대',
    join_paths: ['지인 소개', '검색'],
    terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_USED_AGREE'],
    email: `user${n}@example.com`,
    ...overrides,
  };
}

/** A valid, unique agent sign-up body as the contract has it: no `email`, the agent's e-mail is `company_email`. */
export function agentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { email, ...member } = userBody();
  return {
    ...member,
    terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
    agent_code: '1234567890',
    business_code: '12345678901234',
    company_name: '빈집 공인중개사사무소',
    agent_name: '김대표',
    company_phone_num: '0212345678',
    assistant_name: null,
    company_address: '서울특별시 중구 세종대로 110',
    company_address_detail: '3층',
    company_email: `office.${String(email)}`,
    estate: '주택',
    ...overrides,
  };
}

/** Verifies the body's contacts, then signs up (a member, or an agent when the body has `agent_code`). */
export async function signUp(app: Express, body: Record<string, unknown> = userBody()): Promise<Record<string, unknown>> {
  await verifyContacts(app, body);
  const res = await request(app)
    .post(body.agent_code === undefined ? '/api/v1/users/sign-up' : '/api/v1/agents/sign-up')
    .send(body);
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return body;
}

/** Signs up (unless given an existing body) and signs in; returns the Bearer value and the refresh cookie value. */
export async function signedIn(app: Express, body?: Record<string, unknown>): Promise<{ body: Record<string, unknown>; bearer: string; refresh: string }> {
  const user = body ?? (await signUp(app));
  const res = await request(app).post('/api/v1/users/sign-in').send({ userName: user.userName, password: user.password });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { body: user, bearer: res.body.data.access_token, refresh: refreshCookieValue(res.headers['set-cookie']) };
}

export function refreshCookieValue(setCookie: string | string[] | undefined): string {
  const line = ([] as string[]).concat(setCookie ?? []).find((c) => c.startsWith('RefreshToken='));
  if (!line) throw new Error('no RefreshToken cookie');
  return line.slice('RefreshToken='.length).split(';')[0] ?? '';
}

/** The code (4 to 8 digits, VERIFICATION_CODE_DIGITS) in the last message sent to a target. */
export function lastCode(sender: LocalSmsSender | LocalMailSender, to: string): string {
  const text = sender.lastTo(to)?.text ?? '';
  const match = /\b(\d{4,8})\b/.exec(text);
  if (!match?.[1]) throw new Error(`no code sent to ${to}`);
  return match[1];
}

export const HUGE = 'a'.repeat(100_000);

let adminCounter = 0;

/** An administrator made the way `npm run admin:create` makes one (createAdministrator), signed in. */
export async function signedInAdmin(
  h: AccountsHarness,
  overrides: Record<string, unknown> = {},
): Promise<{ id: number; body: Record<string, unknown>; bearer: string; refresh: string }> {
  adminCounter += 1;
  const n = `${process.pid % 1000}${adminCounter}`.padStart(4, '0');
  const body = {
    userName: `admin_${n}`,
    password: 'Adm1nPass!',
    nick_name: `관리자${n}`,
    phone_num: `0106666${n.slice(-4)}`,
    email: `admin${n}@example.com`,
    userType: 'WEB',
    ...overrides,
  };
  const { id } = await createAdministrator(h.ctx, body);
  return { id, ...(await signedIn(h.app, body)) };
}
