/**
 * Graceful rollout (issue 20 item 3): steady reads and writes through the gateway while one of two houses
 * instances is told to stop (SIGTERM). The instance turns not-ready, the gateway's readiness probe takes it out of
 * the rotation while it still serves what reaches it, and it closes only after SHUTDOWN_DRAIN_MS: no request
 * fails. Needs the built processes (`npx tsc -b`).
 */
import { bearer } from '../support';
import { sampleListing, startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(180_000);

const agent = bearer({ userId: 730_001, userType: 'AGENT' });
let e2e: E2eSystem | undefined;

beforeAll(async () => {
  e2e = await startE2eSystem('rollout', {
    services: ['houses'],
    instances: { houses: 2 },
    env: { LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '3000', HEALTH_INTERVAL_MS: '300', CEILING_MEMBER_WRITES: '0' },
  });
});

afterAll(async () => {
  await e2e?.stop();
});

test('one houses instance of two stopped under steady load: every request succeeds', async () => {
  const system = e2e!;
  const failures: string[] = [];
  let sent = 0;
  let running = true;
  const worker = async (n: number) => {
    for (let i = 0; running; i++) {
      const write = (n + i) % 3 === 0;
      sent++;
      const res = write
        ? await system.api('POST', '/api/v1/houses', { token: agent, body: sampleListing(`배포 중 매물 ${n}-${i}`) }).catch((err: unknown) => ({ thrown: err }))
        : await system.api('GET', '/api/v1/houses?page=0').catch((err: unknown) => ({ thrown: err }));
      // Whatever fetch threw (a timeout is a DOMException from another realm than the test's `Error`), by its name.
      if ('thrown' in res) failures.push(`${write ? 'POST' : 'GET'}: ${String(res.thrown)}`);
      else if (res.status !== 200) failures.push(`${write ? 'POST' : 'GET'}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  const load = Promise.all([0, 1, 2, 3].map(worker));
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const leaving = system.system.services.houses![1];
  const stopped = Date.now();
  await leaving.stop();
  // It drained before it closed (SHUTDOWN_DRAIN_MS), and it was not killed.
  expect(Date.now() - stopped).toBeGreaterThanOrEqual(3_000);
  expect(leaving.child.exitCode).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  running = false;
  await load;
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThan(20);
});
