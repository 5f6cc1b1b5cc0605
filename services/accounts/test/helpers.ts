import { createLogger } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { connectTestDb, dropTestDb, isolatedNames, testEnv } from '../../../test/support';
import { buildApp, domainContext } from '../src/app';
import type { DomainContext } from '../src/domain/context';
import { LocalMailSender, LocalSmsSender, type MailSender, type SmsSender } from '../src/domain/senders';
import { accountsModels, initModels } from '../src/models';

export interface Harness {
  app: Express;
  connection: Connection;
  ctx: DomainContext;
  sms: LocalSmsSender;
  mail: LocalMailSender;
  /** Added to the real clock: tests move time forward without waiting. */
  clock: { offsetMs: number };
  names: { db: string; natsPrefix: string };
  close(): Promise<void>;
}

export async function startHarness(
  label: string,
  options: { eventsPending?: () => void; smsSender?: SmsSender; mailSender?: MailSender; defaultProfileImageUrl?: string } = {},
): Promise<Harness> {
  const names = isolatedNames(label);
  const connection = await connectTestDb(names.db);
  await initModels(accountsModels(connection));
  const clock = { offsetMs: 0 };
  const now = () => new Date(Date.now() + clock.offsetMs);
  const sms = new LocalSmsSender(undefined);
  const mail = new LocalMailSender(undefined);
  const deps = { connection, bcryptCost: 4, now, eventsPending: options.eventsPending };
  const app = buildApp({
    ...deps,
    logger: createLogger('accounts-test', 'silent'),
    publicKey: testEnv().publicKey,
    privateKey: testEnv().privateKey,
    senders: { sms: options.smsSender ?? sms, mail: options.mailSender ?? mail },
    defaultProfileImageUrl: options.defaultProfileImageUrl,
  });
  return {
    app,
    connection,
    ctx: domainContext(deps),
    sms,
    mail,
    clock,
    names,
    close: () => dropTestDb(connection),
  };
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

export function agentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...userBody(),
    terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
    agent_code: '1234567890',
    business_code: '12345678901234',
    company_name: '빈집 공인중개사사무소',
    agent_name: '김대표',
    company_phone_num: '0212345678',
    assistant_name: null,
    company_address: '서울특별시 중구 세종대로 110',
    company_address_detail: '3층',
    company_email: 'office@example.com',
    estate: '주택',
    ...overrides,
  };
}

export async function signUp(app: Express, body: Record<string, unknown> = userBody()): Promise<Record<string, unknown>> {
  const res = await request(app).post('/api/v1/users/sign-up').send(body);
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

/** The 6-digit code in the last message sent to a target. */
export function lastCode(sender: LocalSmsSender | LocalMailSender, to: string): string {
  const text = sender.lastTo(to)?.text ?? '';
  const match = /\b(\d{6})\b/.exec(text);
  if (!match?.[1]) throw new Error(`no code sent to ${to}`);
  return match[1];
}

export const HUGE = 'a'.repeat(100_000);

/** Asserts the envelope of an error answer. */
export function expectError(res: request.Response, status: number, code: string, message?: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body).not.toHaveProperty('data');
  expect(typeof res.body.message).toBe('string');
  if (message !== undefined) expect(res.body.message).toBe(message);
}
