/**
 * A session revoked while NATS is down still ends everywhere (issue 19 item 5, issue 21 item 2): a logout and a
 * completed withdrawal made during an outage of this file's own NATS server are refused by accounts at once, and
 * by community (another process, which learns of revocations only through `sessions.revoked`) once NATS is back,
 * because the revocation went into accounts' outbox with its write instead of straight to the broker. The
 * revocation feed, which enforces them within 10 s during the outage (revocation-feed.e2e.test.ts), is off here
 * (no REVOCATION_FEED_TOKEN), so this shows the broker's path alone. The machine's shared NATS is never stopped.
 * Needs `npx tsc -b`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '../../scripts/lib/nats';
import { eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(180_000);

const PASSWORD = 'Passw0rd!';
const ADMIN = { userName: 'rvadmin', password: 'Adm1nPass!', nick_name: '철회운영자', phone_num: '01077770001', email: 'rvadmin@example.com', userType: 'WEB' };
const member = (n: number) => ({
  userName: `rvmember${n}`,
  password: PASSWORD,
  nick_name: `철회회원${n}`,
  phone_num: `0107777100${n}`,
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE'],
  email: `rvmember${n}@example.com`,
});

let storeDir: string;
let nats: Awaited<ReturnType<typeof startNatsServer>> | undefined;
let e2e: E2eSystem | undefined;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-revocation-outage-'));
  nats = await startNatsServer({ storeDir: path.join(storeDir, 'nats') });
  e2e = await startE2eSystem('revocationoutage', {
    services: ['accounts', 'community'],
    natsUrl: nats.uri,
    env: {
      LOG_LEVEL: 'error',
      BCRYPT_COST: '4',
      OUTAGE_EXIT_MS: '5000',
      OUTBOX_INTERVAL_MS: '500',
      ADMIN_BOOTSTRAP: JSON.stringify([ADMIN]),
      REVOCATION_FEED_TOKEN: '',
    },
  });
}, 120_000);

afterAll(async () => {
  await nats?.restart().catch(() => undefined);
  await e2e?.stop();
  await nats?.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

test('a logout and a withdrawal made while NATS is down reach the other services once it is back: 401 J0004', async () => {
  const system = e2e!;
  const admin = await system.signIn(ADMIN.userName, ADMIN.password);
  const leaving = await system.signUp(member(1));
  const withdrawing = await system.signUp(member(2));
  const loggedOut = await system.signIn(leaving.userName, PASSWORD);
  const withdrawn = await system.signIn(withdrawing.userName, PASSWORD);
  const withdrawnId = (await system.ok<{ id: number }>('GET', '/api/v1/users', { token: withdrawn })).id;
  await system.ok('POST', '/api/v1/users/withdrawal', { token: withdrawn, body: { reason: ['재가입'] } });
  // A read, so community's answer depends on the revocation alone (its write guard also reads the user snapshot).
  const readBoards = (token: string) => system.api('GET', '/api/v1/boards?prefix=DEFAULT', { token });
  for (const token of [loggedOut, withdrawn]) expect((await readBoards(token)).status).toBe(200);

  await nats!.stop();
  await system.ok('POST', '/api/v1/users/logout', { token: loggedOut });
  expect(await system.ok('PUT', `/api/v1/admin/withdrawals/${withdrawnId}`, { token: admin })).toBe(withdrawnId);
  // Accounts refuses at once (in process); community has not heard of it while the broker is away.
  for (const token of [loggedOut, withdrawn]) {
    const refused = await system.api('GET', '/api/v1/users', { token });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'J0004' });
    expect((await readBoards(token)).status).toBe(200);
  }
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  await nats!.restart();
  const restartedAt = Date.now();
  for (const token of [loggedOut, withdrawn]) {
    await eventually(async () => (await readBoards(token)).status === 401, 20_000, 100);
    const refused = await readBoards(token);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'J0004' });
  }
  expect(Date.now() - restartedAt).toBeLessThan(20_000);
});
