/**
 * The original web client (ODOICHON/frontend at e3fd571) signing up and out through the real gateway, with the
 * setting it needs (VERIFICATION_CODE_DIGITS=4): it checks the phone and e-mail codes before it signs up, sends
 * the contract's agent body (company_email, no email), and logs out with the bearer only (no refresh cookie).
 */
import { eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

let e2e: E2eSystem;
beforeAll(async () => {
  e2e = await startE2eSystem('legacysessions', {
    services: ['accounts', 'community'],
    env: { BCRYPT_COST: '4', LOG_LEVEL: 'warn', VERIFICATION_CODE_DIGITS: '4' },
  });
}, 120_000);
afterAll(async () => e2e?.stop());

const PASSWORD = 'Passw0rd!';

/** What the client does on its sign-up page: send a code, read the 4 digits the person types, check it. */
async function checkedByPerson(channel: 'sms' | 'email', target: string): Promise<void> {
  const field = channel === 'sms' ? 'phone_num' : 'email';
  await e2e.ok('POST', `/api/v1/users/send/${channel}`, { body: { [field]: target } });
  const code = await e2e.codeSentTo(target);
  expect(code).toMatch(/^\d{4}$/);
  expect(await e2e.ok('POST', `/api/v1/users/check/${channel}`, { body: { [field]: target, code } })).toBe(true);
}

const refreshOf = (headers: Headers): string => {
  const line = headers.getSetCookie().find((c) => c.startsWith('RefreshToken='));
  if (!line) throw new Error('no refresh cookie');
  return line.slice('RefreshToken='.length).split(';')[0] ?? '';
};

async function signIn(userName: string): Promise<{ bearer: string; refresh: string }> {
  const res = await e2e.api<{ access_token: string }>('POST', '/api/v1/users/sign-in', { body: { userName, password: PASSWORD } });
  expect(res.status).toBe(200);
  return { bearer: res.body.data!.access_token, refresh: refreshOf(res.headers) };
}

it('signs up a member with 4-digit phone and e-mail codes, and refuses one who skipped them (U0011)', async () => {
  const member = {
    userName: 'legacy_member1',
    password: PASSWORD,
    nick_name: '옛회원',
    phone_num: '01023450001',
    age: '30대',
    join_paths: ['검색'],
    terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_USED_AGREE'],
    email: 'legacy1@example.com',
  };
  const unverified = await e2e.api('POST', '/api/v1/users/sign-up', { body: member });
  expect({ status: unverified.status, code: unverified.body.code }).toEqual({ status: 400, code: 'U0011' });
  await checkedByPerson('sms', member.phone_num);
  await checkedByPerson('email', member.email);
  await e2e.ok('POST', '/api/v1/users/sign-up', { body: member });
  const { bearer } = await signIn(member.userName);
  expect(await e2e.ok('GET', '/api/v1/users', { token: bearer })).toMatchObject({ userName: member.userName, email: member.email, userType: 'NONE' });
});

it('signs up an agent with the contract body (company_email is its e-mail) after a 4-digit phone check', async () => {
  const agent = {
    userName: 'legacy_agent1',
    password: PASSWORD,
    nick_name: '옛중개사',
    phone_num: '01023450002',
    age: '40대',
    join_paths: ['검색'],
    terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
    agent_code: '1234567890',
    business_code: '12345678901234',
    company_name: '옛집 공인중개사',
    agent_name: '김대표',
    company_phone_num: '0212345678',
    assistant_name: null,
    company_address: '서울특별시 중구 세종대로 110',
    company_address_detail: '3층',
    company_email: 'office@legacy.example',
    estate: '주택',
  };
  await checkedByPerson('sms', agent.phone_num);
  await e2e.ok('POST', '/api/v1/agents/sign-up', { body: agent });
  const { bearer } = await signIn(agent.userName);
  expect(await e2e.ok('GET', '/api/v1/users', { token: bearer })).toMatchObject({
    userType: 'AGENT',
    email: 'office@legacy.example',
    companyName: '옛집 공인중개사',
  });
});

it('logout with the bearer only ends the session: the old cookie cannot reissue, and every service refuses the token within 2 s', async () => {
  const member = await e2e.signUp({
    userName: 'legacy_member2',
    password: PASSWORD,
    nick_name: '나갈회원',
    phone_num: '01023450003',
    age: '20대',
    join_paths: ['검색'],
    terms: ['SERVICE_USED_AGREE'],
    email: 'legacy2@example.com',
  });
  const session = await signIn(member.userName);
  const other = await signIn(member.userName);
  expect((await e2e.api('GET', '/api/v1/boards?prefix=DEFAULT', { token: session.bearer })).status).toBe(200);

  // The client posts logout with the Authorization header and no cookie.
  await e2e.ok('POST', '/api/v1/users/logout', { token: session.bearer });
  const loggedOutAt = Date.now();
  await eventually(async () => (await e2e.api('GET', '/api/v1/boards?prefix=DEFAULT', { token: session.bearer })).status === 401, 2_000, 20);
  expect(Date.now() - loggedOutAt).toBeLessThan(2_000);
  const refused = await e2e.api('GET', '/api/v1/users', { token: session.bearer });
  expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'J0004' });

  const reissue = await e2e.api('POST', '/api/v1/users/reissue', {
    headers: { Cookie: `RefreshToken=${session.refresh}` },
    body: { access_token: session.bearer },
  });
  expect({ status: reissue.status, code: reissue.body.code }).toEqual({ status: 401, code: 'J0004' });

  // The member's other sign-in is another session and lives on.
  expect((await e2e.api('GET', '/api/v1/boards?prefix=DEFAULT', { token: other.bearer })).status).toBe(200);
  const rotated = await e2e.api('POST', '/api/v1/users/reissue', {
    headers: { Cookie: `RefreshToken=${other.refresh}` },
    body: { access_token: other.bearer },
  });
  expect(rotated.status).toBe(200);
});
