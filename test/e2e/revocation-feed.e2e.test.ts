/**
 * Revocation within a stated bound while NATS is away (issue 34): with this file's own NATS server stopped, a logout,
 * a password change and a suspension are enforced by every service within 10 s (docs/decisions-local.md, "The
 * revocation feed": each process reads accounts' feed every REVOCATION_POLL_MS, 5 s by default), and a member who
 * was not revoked keeps being served everywhere all along. The machine's shared NATS is never stopped. Needs
 * `npx tsc -b`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '../../scripts/lib/nats';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

/** The bound the docs state for a revocation made while the broker is away. */
const BOUND_MS = 10_000;
const PASSWORD = 'Passw0rd!';
const ADMIN = { userName: 'rfadmin', password: 'Adm1nPass!', nick_name: '피드운영자', phone_num: '01078780001', email: 'rfadmin@example.com', userType: 'WEB' };
const member = (n: number) => ({
  userName: `rfmember${n}`,
  password: PASSWORD,
  nick_name: `피드회원${n}`,
  phone_num: `0107878100${n}`,
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE'],
  email: `rfmember${n}@example.com`,
});

/** A read and a write per service; the writes carry no valid body, so the guards decide before anything is written. */
const PROBES = {
  accounts: { read: ['GET', '/api/v1/users'], write: ['PUT', '/api/v1/users/update/nick-name'] },
  community: { read: ['GET', '/api/v1/boards?prefix=DEFAULT'], write: ['POST', '/api/v1/comments'] },
  houses: { read: ['GET', '/api/v1/houses?page=0'], write: ['POST', '/api/v1/houses'] },
  records: { read: ['GET', '/api/v1/record/hot'], write: ['POST', '/api/v1/record_comment'] },
  notifications: { read: ['GET', '/api/v1/notifications'], write: ['PUT', '/api/v1/notifications/999999'] },
} as const;
type Service = keyof typeof PROBES;
const SERVICES = Object.keys(PROBES) as Service[];

let storeDir: string;
let nats: Awaited<ReturnType<typeof startNatsServer>> | undefined;
let e2e: E2eSystem | undefined;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-revocation-feed-'));
  nats = await startNatsServer({ storeDir: path.join(storeDir, 'nats') });
  e2e = await startE2eSystem('revocationfeed', {
    services: SERVICES,
    natsUrl: nats.uri,
    env: {
      LOG_LEVEL: 'error',
      BCRYPT_COST: '4',
      OUTAGE_EXIT_MS: '5000',
      OUTBOX_INTERVAL_MS: '500',
      CEILING_MEMBER_WRITES: '0',
      ADMIN_BOOTSTRAP: JSON.stringify([ADMIN]),
    },
  });
}, 180_000);

afterAll(async () => {
  await nats?.restart().catch(() => undefined);
  await e2e?.stop();
  await nats?.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

type Answer = { status: number; code: string };

async function probe(service: Service, kind: 'read' | 'write', token: string): Promise<Answer> {
  const [method, url] = PROBES[service][kind];
  const res = await e2e!.api(method, url, { token, body: kind === 'write' ? {} : undefined });
  return { status: res.status, code: String(res.body.code) };
}

/** Every service's answer to a token. */
async function everywhere(kind: 'read' | 'write', token: string): Promise<Record<Service, Answer>> {
  const answers = await Promise.all(SERVICES.map(async (service) => [service, await probe(service, kind, token)] as const));
  return Object.fromEntries(answers) as Record<Service, Answer>;
}

/** Waits until every service refuses with `refused`, at most BOUND_MS after `since`; gives how long it took. */
async function refusedEverywhereWithin(kind: 'read' | 'write', token: string, refused: Answer, since: number): Promise<number> {
  let last: Record<Service, Answer> | undefined;
  for (;;) {
    last = await everywhere(kind, token);
    if (SERVICES.every((service) => last![service].status === refused.status && last![service].code === refused.code)) return Date.now() - since;
    if (Date.now() - since > BOUND_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const expected = Object.fromEntries(SERVICES.map((service) => [service, refused]));
  expect({ afterMs: BOUND_MS, answers: last }).toEqual({ afterMs: BOUND_MS, answers: expected });
  return Date.now() - since;
}

/** A member who was not revoked: every read 200, every write past the session and suspension guards. */
async function expectServed(token: string): Promise<void> {
  const reads = await everywhere('read', token);
  expect(Object.fromEntries(SERVICES.map((s) => [s, reads[s].status]))).toEqual(Object.fromEntries(SERVICES.map((s) => [s, 200])));
  const writes = await everywhere('write', token);
  for (const service of SERVICES)
    expect({ service, refused: writes[service].status === 401 || writes[service].status === 403 }).toEqual({ service, refused: false });
}

test('with NATS stopped, a logout, a password change and a suspension are enforced by every service within 10 s; others keep being served', async () => {
  const system = e2e!;
  const admin = await system.signIn(ADMIN.userName, ADMIN.password);
  const [leaving, changing, suspending, bystanding] = await Promise.all([1, 2, 3, 4].map((n) => system.signUp(member(n))));
  const loggedOut = await system.signIn(leaving.userName, PASSWORD);
  const changer = await system.signIn(changing.userName, PASSWORD);
  const changersOtherSession = await system.signIn(changing.userName, PASSWORD);
  const suspended = await system.signIn(suspending.userName, PASSWORD);
  const suspendedId = (await system.ok<{ id: number }>('GET', '/api/v1/users', { token: suspended })).id;
  const bystander = await system.signIn(bystanding.userName, PASSWORD);
  for (const token of [loggedOut, changer, changersOtherSession, suspended, bystander]) await expectServed(token);

  await nats!.stop();

  // Logout: its session's access token is refused everywhere (401 J0004).
  let revokedAt = Date.now();
  await system.ok('POST', '/api/v1/users/logout', { token: loggedOut });
  const logoutMs = await refusedEverywhereWithin('read', loggedOut, { status: 401, code: 'J0004' }, revokedAt);
  await expectServed(bystander);

  // Password change: every other session of the member ends everywhere; the changing one goes on.
  revokedAt = Date.now();
  await system.ok('PUT', '/api/v1/users/update/password', { token: changer, body: { password: 'Chang3d!!' } });
  const passwordMs = await refusedEverywhereWithin('read', changersOtherSession, { status: 401, code: 'J0004' }, revokedAt);
  await expectServed(changer);
  await expectServed(bystander);

  // Suspension: the member's writes answer 403 U0012 everywhere; his reads go on, as with NATS.
  revokedAt = Date.now();
  await system.ok('PUT', `/api/v1/admin/users/${suspendedId}/suspension`, { token: admin, body: { reason: '도배' } });
  const suspensionMs = await refusedEverywhereWithin('write', suspended, { status: 403, code: 'U0012' }, revokedAt);
  const reads = await everywhere('read', suspended);
  expect(SERVICES.map((s) => reads[s].status)).toEqual(SERVICES.map(() => 200));
  await expectServed(bystander);

  for (const ms of [logoutMs, passwordMs, suspensionMs]) expect(ms).toBeLessThanOrEqual(BOUND_MS);
  // Still away: all of the above came without the broker.
  for (const service of SERVICES) {
    const ready = (await (await fetch(`${system.system.services[service]![0].url}/ready`)).json()) as { data: { status: string } };
    expect({ service, status: ready.data.status }).toEqual({ service, status: 'DEGRADED' });
  }
});
