/**
 * Every change a member or an administrator can make to a user reaches the other services' projections: the
 * built gateway and all five services as real processes (run `npx tsc -b` first). The kinds come from the
 * declaration in accounts (domain/user-changes.ts), so a new kind needs a scenario here (the record below does
 * not compile without one), and a kind that stores a snapshot field without publishing it fails: the projection
 * in community, houses, records and notifications must equal what accounts stores, field for field and version
 * for version, after each change.
 */
import { projectedUserModel, type ProjectedUser } from '@binzip/shared';
import {
  projectedFieldsOf,
  SNAPSHOT_FIELDS,
  USER_CHANGES,
  USER_CREATIONS,
  type UserChangeKind,
  type UserCreationKind,
} from '../../services/accounts/src/domain/user-changes';
import type { UserDoc } from '../../services/accounts/src/models';
import { eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(120_000);

const PROJECTING = ['community', 'houses', 'records', 'notifications'] as const;
const ADMIN = { userName: 'ucadmin', password: 'Adm1nPass!', nick_name: '변경관리자', phone_num: '01066660001', email: 'ucadmin@example.com', userType: 'WEB' };
const PASSWORD = 'Passw0rd!';
const NEW_PASSWORD = 'Chang3d!!';

let e2e: E2eSystem;
let admin: string;

beforeAll(async () => {
  e2e = await startE2eSystem('userchangese2e', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
    env: { LOG_LEVEL: 'warn', BCRYPT_COST: '4', ADMIN_BOOTSTRAP: JSON.stringify([ADMIN]), OUTBOX_INTERVAL_MS: '200' },
  });
  admin = await e2e.signIn(ADMIN.userName, ADMIN.password);
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
});

const ok = <T = unknown>(method: string, path: string, token?: string, body?: unknown) => e2e.ok<T>(method, path, { token, body });
const idOf = async (token: string) => (await ok<{ id: number }>('GET', '/api/v1/users', token)).id;

const memberBody = {
  userName: 'ucmember',
  password: PASSWORD,
  nick_name: '변경회원',
  phone_num: '01066660002',
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE'],
  email: 'ucmember@example.com',
};
const agentBody = {
  userName: 'ucagent',
  password: PASSWORD,
  nick_name: '변경중개',
  phone_num: '01066660003',
  age: '40대',
  join_paths: ['기타'],
  terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
  agent_code: '1234567890',
  business_code: '12345678901234',
  company_name: '빈집 공인중개사사무소',
  agent_name: '김대표',
  company_phone_num: '0212345678',
  assistant_name: null,
  company_address: '서울특별시 중구 세종대로 110',
  company_address_detail: '3층',
  company_email: 'ucagent@example.com',
  estate: '주택',
};

/** The member's and the agent's sessions, from their sign-ups on. */
const tokens: { member?: string; agent?: string } = {};
const need = (token: string | undefined): string => {
  if (!token) throw new Error('an earlier scenario did not run');
  return token;
};

async function verified(channel: 'sms' | 'email', target: string): Promise<void> {
  const field = channel === 'sms' ? 'phone_num' : 'email';
  await ok('POST', `/api/v1/users/send/${channel}`, undefined, { [field]: target });
  expect(await ok('POST', `/api/v1/users/check/${channel}`, undefined, { [field]: target, code: await e2e.codeSentTo(target) })).toBe(true);
}

/** Each kind made through the gateway as a client would; answers the id of the user it changed. */
const SCENARIOS: Record<UserCreationKind | UserChangeKind, () => Promise<number>> = {
  memberSignUp: async () => {
    await e2e.signUp(memberBody);
    tokens.member = await e2e.signIn(memberBody.userName, PASSWORD);
    return idOf(tokens.member);
  },
  agentSignUp: async () => {
    await e2e.signUp(agentBody);
    tokens.agent = await e2e.signIn(agentBody.userName, PASSWORD);
    return idOf(tokens.agent);
  },
  // ADMIN_BOOTSTRAP made it when accounts started.
  administratorCreation: async () => idOf(admin),
  nickName: async () => {
    await ok('PUT', '/api/v1/users/update/nick-name', need(tokens.member), { nick_name: '새이름회원' });
    return idOf(need(tokens.member));
  },
  password: async () => {
    await ok('PUT', '/api/v1/users/update/password', need(tokens.member), { password: NEW_PASSWORD });
    return idOf(need(tokens.member));
  },
  phone: async () => {
    await verified('sms', '01066660099');
    await ok('PUT', '/api/v1/users/update/phone', need(tokens.member), { phone_num: '01066660099' });
    return idOf(need(tokens.member));
  },
  email: async () => {
    await verified('email', 'ucmember.new@example.com');
    await ok('PUT', '/api/v1/users/update/email', need(tokens.member), { email: 'ucmember.new@example.com' });
    return idOf(need(tokens.member));
  },
  profile: async () => {
    await ok('PUT', '/api/v1/users', need(tokens.member), { password: NEW_PASSWORD, nick_name: '통합변경회원' });
    return idOf(need(tokens.member));
  },
  withdrawalRequest: async () => {
    await ok('POST', '/api/v1/users/withdrawal', need(tokens.member), { reason: ['기타'], content: '안녕히' });
    return idOf(need(tokens.member));
  },
  suspension: async () => {
    const id = await idOf(need(tokens.agent));
    await ok('PUT', `/api/v1/admin/users/${id}/suspension`, admin, { reason: '도배' });
    return id;
  },
  suspensionLift: async () => {
    const id = await idOf(need(tokens.agent));
    await ok('DELETE', `/api/v1/admin/users/${id}/suspension`, admin);
    return id;
  },
  withdrawalCompletion: async () => {
    const id = await idOf(need(tokens.member));
    await ok('PUT', `/api/v1/admin/withdrawals/${id}`, admin);
    return id;
  },
};

type Projected = Omit<ProjectedUser, '_id'>;
const stored = new Map<number, UserDoc>();

async function inAccounts(id: number): Promise<UserDoc> {
  const user = await (await e2e.db('accounts')).collection<UserDoc>('users').findOne({ _id: id });
  if (!user) throw new Error(`accounts has no user ${id}`);
  return user;
}

/** What every projection must hold for this accounts document. */
const projectionOf = (user: UserDoc): Projected =>
  ({
    ...Object.fromEntries(SNAPSHOT_FIELDS.map((field) => [field, user[field]])),
    version: user.version,
  }) as Projected;

async function projections(id: number): Promise<Record<string, Projected | null>> {
  const entries = await Promise.all(
    PROJECTING.map(async (service) => {
      const user = await projectedUserModel(await e2e.db(service))
        .findById(id, { _id: 0 })
        .lean<Projected>()
        .exec();
      return [service, user] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** Key order aside, the same values. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner,
  );

/** Waits for every projection to hold the accounts document's snapshot; on a timeout, shows what they hold. */
async function expectProjected(id: number, user: UserDoc): Promise<void> {
  const expected = Object.fromEntries(PROJECTING.map((service) => [service, projectionOf(user)]));
  const seen = await eventually(async () => {
    const now = await projections(id);
    return canonical(now) === canonical(expected) ? now : undefined;
  }, 15_000).catch(async () => projections(id));
  expect(seen).toEqual(expected);
}

it('has a scenario for every kind the accounts module declares, and nothing else', () => {
  expect(Object.keys(SCENARIOS).sort()).toEqual([...Object.keys(USER_CREATIONS), ...Object.keys(USER_CHANGES)].sort());
});

describe.each(Object.keys(USER_CREATIONS) as UserCreationKind[])('creation %s', (kind) => {
  it('reaches every projection at version 1', async () => {
    const id = await SCENARIOS[kind]();
    const user = await inAccounts(id);
    expect(user.version).toBe(1);
    stored.set(id, user);
    await expectProjected(id, user);
  });
});

describe.each(Object.keys(USER_CHANGES) as UserChangeKind[])('change %s', (kind) => {
  const projected = projectedFieldsOf(kind);
  const writes: ReadonlyArray<keyof UserDoc> = USER_CHANGES[kind].writes;
  it(projected.length > 0 ? `reaches every projection (${projected.join(', ')})` : 'is stored and publishes nothing (no projected field)', async () => {
    const id = await SCENARIOS[kind]();
    const before = stored.get(id);
    if (!before) throw new Error(`no earlier state of user ${id}`);
    const after = await inAccounts(id);
    // The scenario made a real change of this kind.
    expect(writes.filter((field) => JSON.stringify(after[field]) !== JSON.stringify(before[field]))).not.toEqual([]);
    for (const field of projected) expect({ field, value: after[field] }).not.toEqual({ field, value: before[field] });
    expect(after.version).toBe(projected.length > 0 ? before.version + 1 : before.version);
    stored.set(id, after);
    await expectProjected(id, after);
  });
});
