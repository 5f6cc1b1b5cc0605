/**
 * The accounts part of the API document against the running system: the built gateway and accounts (run
 * `npx tsc -b` first). Every operation accounts serves is driven through the gateway, its success answer and
 * its main error answers, and each answer is checked against the document by the e2e harness; at the end no
 * operation of accounts' tags may be left unexercised.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../support';
import { apiContract } from '../support/contract';
import { codeSentTo as codeSentToOutbox, startE2eSystem, type ApiOptions, type E2eSystem } from '../support/e2e';

jest.setTimeout(120_000);

const ADMIN = {
  userName: 'contractadmin',
  password: 'Adm1nPass!',
  nick_name: '계약관리자',
  phone_num: '01066660001',
  email: 'admin@contract.example',
  userType: 'WEB',
};
const PASSWORD = 'Passw0rd!';
const TAGS = ['users', 'agents', 'admin-users', 'admin-withdrawals', 'admin-stats', 'admin-audit'];

const outboxDir = mkdtempSync(path.join(os.tmpdir(), 'accounts-contract-'));
let e2e: E2eSystem;
let admin: string;

beforeAll(async () => {
  e2e = await startE2eSystem('acctcontract', {
    services: ['accounts'],
    // Every sign-up answer counts against one address's ceiling (20 an hour by default); this file sends more.
    env: {
      LOG_LEVEL: 'warn',
      BCRYPT_COST: '4',
      DEV_OUTBOX_DIR: outboxDir,
      ADMIN_BOOTSTRAP: JSON.stringify([ADMIN]),
      CEILING_SIGN_UPS_PER_ADDRESS: '100',
    },
  });
  admin = await e2e.signIn(ADMIN.userName, ADMIN.password);
}, 90_000);

afterAll(async () => {
  await e2e?.stop();
  rmSync(outboxDir, { recursive: true, force: true });
});

// Bodies are read field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const call = async (method: string, route: string, options?: ApiOptions) => {
  const res = await e2e.api<Loose>(method, route, options);
  return { status: res.status, body: res.body, cookies: res.headers.getSetCookie() };
};

const codeSentTo = (to: string): string | undefined => codeSentToOutbox(outboxDir, to);

const refreshOf = (cookies: string[]): string => {
  const line = cookies.find((c) => c.startsWith('RefreshToken='));
  if (!line) throw new Error(`no refresh cookie in ${JSON.stringify(cookies)}`);
  return line.slice('RefreshToken='.length).split(';')[0] ?? '';
};

let n = 0;
function memberBody() {
  n += 1;
  return {
    userName: `contract_${n}`,
    password: PASSWORD,
    nick_name: `계약회원${n}`,
    phone_num: `0105551${String(n).padStart(4, '0')}`,
    age: '30대',
    join_paths: ['검색'],
    terms: ['SERVICE_USED_AGREE'],
    email: `member${n}@contract.example`,
  };
}

async function member(): Promise<{ body: ReturnType<typeof memberBody>; token: string; refresh: string; id: number }> {
  const body = await e2e.signUp(memberBody());
  const signIn = await call('POST', '/api/v1/users/sign-in', { body: { userName: body.userName, password: PASSWORD } });
  expect(signIn.status).toBe(200);
  const token = signIn.body.data.access_token as string;
  const id = (await e2e.ok<{ id: number }>('GET', '/api/v1/users', { token })).id;
  return { body, token, refresh: refreshOf(signIn.cookies), id };
}

async function verified(channel: 'sms' | 'email', target: string): Promise<void> {
  const field = channel === 'sms' ? 'phone_num' : 'email';
  expect((await call('POST', `/api/v1/users/send/${channel}`, { body: { [field]: target } })).status).toBe(200);
  const code = await eventually(() => codeSentTo(target));
  expect((await call('POST', `/api/v1/users/check/${channel}`, { body: { [field]: target, code: code === '000000' ? '111111' : '000000' } })).body.data).toBe(
    false,
  );
  expect((await call('POST', `/api/v1/users/check/${channel}`, { body: { [field]: target, code } })).body.data).toBe(true);
}

describe('sign-up and the checks', () => {
  it('signs up members and agents, refusing clashes, missing terms and malformed bodies', async () => {
    const body = memberBody();
    expect((await call('POST', '/api/v1/users/sign-up', { body })).body.code).toBe('U0011');
    await e2e.verifyContacts(body);
    expect((await call('POST', '/api/v1/users/sign-up', { body })).body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect((await call('POST', '/api/v1/users/sign-up', { body })).body.code).toBe('U0007');
    expect((await call('POST', '/api/v1/users/sign-up', { body: { ...memberBody(), terms: [] } })).body.code).toBe('U0009');
    expect((await call('POST', '/api/v1/users/sign-up', { body: { ...memberBody(), extra: 1 } })).body.code).toBe('C0002');
    // A clash of one field, judged before the contacts' verification (userName, nick_name, phone, e-mail in that order).
    expect((await call('POST', '/api/v1/users/sign-up', { body: { ...memberBody(), nick_name: body.nick_name } })).body.code).toBe('U0005');
    expect((await call('POST', '/api/v1/users/sign-up', { body: { ...memberBody(), phone_num: body.phone_num } })).body.code).toBe('U0000');
    expect((await call('POST', '/api/v1/users/sign-up', { body: { ...memberBody(), email: body.email } })).body.code).toBe('U0010');

    const { email: _unused, ...agentMember } = memberBody();
    const agent = {
      ...agentMember,
      terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
      agent_code: '1234567890',
      business_code: '12345678901234',
      company_name: '계약 공인중개사',
      agent_name: '김대표',
      company_phone_num: '0212345678',
      assistant_name: null,
      company_address: '서울특별시 중구 세종대로 110',
      company_address_detail: '3층',
      company_email: 'office@contract.example',
      estate: '주택',
    };
    await e2e.verifyContacts(agent);
    expect((await call('POST', '/api/v1/agents/sign-up', { body: agent })).status).toBe(200);
    expect((await call('POST', '/api/v1/agents/sign-up', { body: { ...agent, userName: 'contract_other' } })).body.code).toBe('U0005');
    // An agent's e-mail is its company_email, unique among every member's e-mail.
    const { email: freshEmail, ...fresh } = memberBody();
    const nextAgent = { ...agent, ...fresh, terms: agent.terms, company_email: freshEmail };
    expect((await call('POST', '/api/v1/agents/sign-up', { body: { ...nextAgent, userName: body.userName } })).body.code).toBe('U0007');
    expect((await call('POST', '/api/v1/agents/sign-up', { body: { ...nextAgent, phone_num: body.phone_num } })).body.code).toBe('U0000');
    expect((await call('POST', '/api/v1/agents/sign-up', { body: { ...nextAgent, company_email: body.email } })).body.code).toBe('U0010');
    expect((await call('POST', '/api/v1/agents/sign-up', { body: { ...nextAgent, terms: ['SERVICE_USED_AGREE'] } })).body.code).toBe('U0009');
    expect((await call('POST', '/api/v1/agents/sign-up', { body: nextAgent })).body.code).toBe('U0011');
    expect((await call('POST', '/api/v1/agents/sign-up', { body: { ...memberBody(), terms: ['SERVICE_USED_AGREE'] } })).body.code).toBe('C0002');
  });

  it('answers the availability checks', async () => {
    const taken = await e2e.signUp(memberBody());
    expect((await call('POST', '/api/v1/users/check/user-name', { body: { userName: taken.userName } })).body.data).toBe(false);
    expect((await call('POST', '/api/v1/users/check/user-name', { body: { userName: 'free_name_1' } })).body.data).toBe(true);
    expect((await call('POST', '/api/v1/users/check/nick-name', { body: { nick_name: taken.nick_name } })).body.data).toBe(false);
    expect((await call('POST', '/api/v1/users/check/nick-name', { body: { nick_name: '빈닉네임' } })).body.data).toBe(true);
    expect((await call('POST', '/api/v1/users/check/nick-name', { body: { nick_name: '' } })).body.code).toBe('C0002');
  });

  it('sends and checks codes, refusing registered targets', async () => {
    await verified('sms', '01088880001');
    await verified('email', 'fresh@contract.example');
    const taken = await e2e.signUp(memberBody());
    expect((await call('POST', '/api/v1/users/send/sms', { body: { phone_num: taken.phone_num } })).body.code).toBe('U0000');
    expect((await call('POST', '/api/v1/users/send/email', { body: { email: taken.email } })).body.code).toBe('U0010');
    expect((await call('POST', '/api/v1/users/check/sms', { body: { phone_num: '123', code: '000000' } })).body.code).toBe('C0002');
    expect((await call('POST', '/api/v1/users/check/email', { body: { email: 'not-mail', code: '000000' } })).body.code).toBe('C0002');
  });
});

describe('sessions', () => {
  it('signs in with the cookie, reissues with it, logs out; wrong credentials and stale cookies are refused', async () => {
    const { body, token, refresh } = await member();
    expect((await call('POST', '/api/v1/users/sign-in', { body: { userName: 'nobody_here', password: PASSWORD } })).body.code).toBe('U0001');
    expect((await call('POST', '/api/v1/users/sign-in', { body: { userName: body.userName, password: 'Wrong0pass!' } })).body.code).toBe('U0002');

    const reissued = await call('POST', '/api/v1/users/reissue', { body: { access_token: token }, headers: { Cookie: `RefreshToken=${refresh}` } });
    expect(reissued.status).toBe(200);
    expect(reissued.body.data.access_token).toMatch(/^Bearer /);
    expect(reissued.cookies.some((c) => c.startsWith('RefreshToken='))).toBe(true);
    expect((await call('POST', '/api/v1/users/reissue', { body: { access_token: token } })).body.code).toBe('J0004');

    const next = refreshOf(reissued.cookies);
    const out = await call('POST', '/api/v1/users/logout', { token: reissued.body.data.access_token, headers: { Cookie: `RefreshToken=${next}` } });
    expect(out.status).toBe(200);
    expect((await call('POST', '/api/v1/users/logout')).body.code).toBe('J0000');
  });
});

describe('the profile', () => {
  it('reads the profile and checks the password', async () => {
    const { token } = await member();
    expect((await e2e.ok<Loose>('GET', '/api/v1/users', { token })).authority).toBe('USER');
    expect((await call('GET', '/api/v1/users')).body.code).toBe('J0000');
    expect((await call('POST', '/api/v1/users/check/password', { token, body: { password: PASSWORD } })).body.data).toBe(true);
    expect((await call('POST', '/api/v1/users/check/password', { token, body: { password: 'nope' } })).body.data).toBe(false);
  });

  it('changes the nickname, password, e-mail and phone, and the whole profile', async () => {
    const { token } = await member();
    const other = await member();
    expect((await call('PUT', '/api/v1/users/update/nick-name', { token, body: { nick_name: '새닉네임1' } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/users/update/nick-name', { token, body: { nick_name: other.body.nick_name } })).body.code).toBe('U0005');

    expect((await call('PUT', '/api/v1/users/update/password', { token, body: { password: PASSWORD } })).body.code).toBe('U0006');
    expect((await call('PUT', '/api/v1/users/update/password', { token, body: { password: 'N3wPassw0rd!' } })).status).toBe(200);

    expect((await call('PUT', '/api/v1/users/update/email', { token, body: { email: 'unverified@contract.example' } })).body.code).toBe('U0011');
    await verified('email', 'changed@contract.example');
    expect((await call('PUT', '/api/v1/users/update/email', { token, body: { email: 'changed@contract.example' } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/users/update/email', { token, body: { email: other.body.email } })).body.code).toBe('U0010');

    expect((await call('PUT', '/api/v1/users/update/phone', { token, body: { phone_num: '01088880009' } })).body.code).toBe('U0011');
    await verified('sms', '01088880002');
    expect((await call('PUT', '/api/v1/users/update/phone', { token, body: { phone_num: '01088880002' } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/users/update/phone', { token, body: { phone_num: other.body.phone_num } })).body.code).toBe('U0000');

    expect((await call('PUT', '/api/v1/users', { token, body: { password: PASSWORD, nick_name: '또다른닉' } })).body.code).toBe('U0002');
    expect((await call('PUT', '/api/v1/users', { token, body: { password: 'N3wPassw0rd!', nick_name: '또다른닉' } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/users', { token, body: { password: 'N3wPassw0rd!', nick_name: other.body.nick_name } })).body.code).toBe('U0005');
    expect((await call('PUT', '/api/v1/users', { token, body: { password: 'N3wPassw0rd!', phone_num: other.body.phone_num } })).body.code).toBe('U0000');
    expect((await call('PUT', '/api/v1/users', { token, body: { password: 'N3wPassw0rd!', phone_num: '01088880010' } })).body.code).toBe('U0011');
    expect((await call('PUT', '/api/v1/users', { token, body: { password: 'N3wPassw0rd!', new_password: 'N3wPassw0rd!' } })).body.code).toBe('U0006');
    expect((await call('PUT', '/api/v1/users', { token, body: { password: 'N3wPassw0rd!', unknown: 1 } })).body.code).toBe('C0002');
  });

  it("answers C0001 to a live token whose member's record is gone", async () => {
    // No token accounts issues names a missing record: a completed withdrawal keeps the record, erased, and ends its
    // sessions (J0004, below). A record is missing when the store loses it under a live token, as a restore from a
    // backup older than the sign-up does; deleting the document is that loss.
    const { token, id } = await member();
    await (await e2e.db('accounts')).collection('users').deleteOne({ _id: id } as object);
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/users'],
      ['POST', '/api/v1/users/check/password', { password: PASSWORD }],
      ['PUT', '/api/v1/users', { password: PASSWORD, nick_name: '사라진회원' }],
      ['PUT', '/api/v1/users/update/nick-name', { nick_name: '사라진닉' }],
      ['PUT', '/api/v1/users/update/password', { password: 'N3wPassw0rd!' }],
      ['PUT', '/api/v1/users/update/email', { email: 'gone@contract.example' }],
      ['PUT', '/api/v1/users/update/phone', { phone_num: '01088880011' }],
      ['POST', '/api/v1/users/withdrawal', { reason: ['기타'], content: '이사' }],
    ];
    for (const [method, route, body] of requests) {
      const res = await call(method, route, { token, body });
      expect({ route, status: res.status, code: res.body.code }).toEqual({ route, status: 404, code: 'C0001' });
    }
  });

  it('requests withdrawal once', async () => {
    const { token } = await member();
    const request = { reason: ['기타'], content: '이사' };
    expect((await call('POST', '/api/v1/users/withdrawal', { token, body: request })).status).toBe(200);
    expect((await call('POST', '/api/v1/users/withdrawal', { token, body: request })).body.code).toBe('U0008');
  });
});

describe('the administrators', () => {
  it('lists members, suspends and lifts; a member is refused and a suspended member cannot write', async () => {
    const target = await member();
    const page = await e2e.ok<Loose>('GET', `/api/v1/admin/users?search=${target.body.userName}`, { token: admin });
    expect(page.content.map((u: { id: number }) => u.id)).toEqual([target.id]);
    expect((await call('GET', '/api/v1/admin/users', { token: target.token })).body.code).toBe('J0006');
    expect((await call('GET', '/api/v1/admin/users?size=-1', { token: admin })).body.code).toBe('C0002');

    const route = `/api/v1/admin/users/${target.id}/suspension`;
    expect(await e2e.ok('PUT', route, { token: admin, body: { reason: '도배' } })).toBe(target.id);
    expect((await call('PUT', '/api/v1/users/update/nick-name', { token: target.token, body: { nick_name: '정지중닉' } })).body.code).toBe('U0012');
    expect((await call('POST', '/api/v1/users/sign-in', { body: { userName: target.body.userName, password: PASSWORD } })).body.code).toBe('U0012');
    expect((await call('PUT', '/api/v1/admin/users/999999/suspension', { token: admin, body: { reason: '도배' } })).body.code).toBe('C0001');
    const adminId = (await e2e.ok<{ id: number }>('GET', '/api/v1/users', { token: admin })).id;
    expect((await call('PUT', `/api/v1/admin/users/${adminId}/suspension`, { token: admin, body: { reason: '도배' } })).body.code).toBe('C0003');

    expect(await e2e.ok('DELETE', route, { token: admin })).toBe(target.id);
    expect((await call('DELETE', '/api/v1/admin/users/999999/suspension', { token: admin })).body.code).toBe('C0001');

    // Issue 40: both actions reach the audit trail (accounts' outbox, the AUDIT stream, accounts' consumer), newest first.
    const actions = await eventually(async () => {
      const audit = await e2e.ok<Loose>('GET', `/api/v1/admin/audit?targetType=USER&targetId=${target.id}`, { token: admin });
      const found = audit.content.map((entry: { action: string; reason: string | null }) => [entry.action, entry.reason]);
      return found.length === 2 ? found : undefined;
    }, 10_000);
    expect(actions).toEqual([
      ['LIFT_SUSPENSION', null],
      ['SUSPEND', '도배'],
    ]);
    expect((await call('GET', '/api/v1/admin/audit', { token: target.token })).body.code).toBe('J0006');
    expect((await call('GET', '/api/v1/admin/audit?from=never', { token: admin })).body.code).toBe('C0002');
    await e2e.ok('GET', '/api/v1/admin/users?sort=reportCount,desc&status=ACTIVE', { token: admin });
    await e2e.ok('GET', '/api/v1/admin/withdrawals?sort=requestedAt,desc&userType=NONE&search=a', { token: admin });
  });

  it('lists and completes withdrawals', async () => {
    const leaving = await member();
    await e2e.ok('POST', '/api/v1/users/withdrawal', { token: leaving.token, body: { reason: ['재가입'] } });
    const page = await e2e.ok<Loose>('GET', '/api/v1/admin/withdrawals?size=100', { token: admin });
    expect(page.content.some((w: { userId: number }) => w.userId === leaving.id)).toBe(true);
    expect(await e2e.ok('PUT', `/api/v1/admin/withdrawals/${leaving.id}`, { token: admin })).toBe(leaving.id);
    expect((await call('PUT', `/api/v1/admin/withdrawals/${leaving.id}`, { token: admin })).body.code).toBe('C0001');
    // The completed withdrawal ended the member's sessions: its token is now refused as a token (J0004), within the
    // 2 s a revocation takes to reach every process, no longer merely as a role too low for this page (J0006).
    await eventually(async () => {
      expect((await call('GET', '/api/v1/admin/withdrawals', { token: leaving.token })).body.code).toBe('J0004');
      return true;
    }, 2_000);
  });

  it('reads the member statistics', async () => {
    const stats = await e2e.ok<Loose>('GET', '/api/v1/admin/stats/users', { token: admin });
    expect(stats.signUpsByDay).toHaveLength(30);
    expect((await call('GET', '/api/v1/admin/stats/users')).body.code).toBe('J0000');
  });
});

it('exercised every operation of the accounts document', async () => {
  const contract = await apiContract();
  for (const tag of TAGS) expect({ tag, uncovered: contract.uncovered(tag) }).toEqual({ tag, uncovered: [] });
});
