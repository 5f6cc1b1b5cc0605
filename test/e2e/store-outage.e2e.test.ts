/**
 * Staying up: the store goes away for longer than OUTAGE_EXIT_MS and comes back on the same address. Every
 * service answers again without anyone's help: each one exits non-zero once the outage lasts too long, and the
 * launcher (`npm start`'s, scripts/lib/system.ts) starts it again with backoff until the store is back.
 * Needs the built processes (`npx tsc -b`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMongo, type RunningStore } from '../../scripts/lib/mongo';
import { freePort } from '../../scripts/lib/server-process';
import { SERVICES, type ProcessHandle } from '../../scripts/lib/system';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

const agent = { userId: 720_001, userType: 'AGENT' as const };

let dataDir: string;
let port: number;
let store: RunningStore | undefined;
let e2e: E2eSystem | undefined;

/** A persistent store of our own on a fixed port (the run's shared store must stay up), so data survives a restart. */
async function startStore(): Promise<RunningStore> {
  const sharedUri = process.env.MONGODB_URI;
  delete process.env.MONGODB_URI;
  try {
    return await startMongo({ persistent: true, dataDir, port });
  } finally {
    process.env.MONGODB_URI = sharedUri;
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-outage-'));
  port = await freePort();
  store = await startStore();
  e2e = await startE2eSystem('storeoutage', {
    services: [...SERVICES],
    mongoUri: store.uri,
    env: { LOG_LEVEL: 'warn', OUTAGE_EXIT_MS: '6000' },
    restartBackoffMs: [500, 1_000, 2_000],
  });
});

afterAll(async () => {
  await e2e?.stop().catch(() => undefined);
  await store?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const services = (): ProcessHandle[] => SERVICES.flatMap((name) => e2e!.system.services[name] ?? []);

const healthy = async (handle: ProcessHandle) =>
  (await fetch(`${handle.url}/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status === 200;

test('a store outage beyond OUTAGE_EXIT_MS: requests fail fast meanwhile, and every service answers again once it is back', async () => {
  const houseId = await e2e!.ok<number>('POST', '/api/v1/houses', {
    token: bearer(agent),
    body: {
      rentalType: 'SALE',
      city: '경상북도 안동시 풍천면',
      detail: '하회마을 1',
      zipCode: '36758',
      size: '66.1',
      purpose: '주거용',
      floorNum: 1,
      contact: '01011112222',
      createdDate: '1960',
      price: 9000,
      monthlyPrice: 0,
      agentName: null,
      title: '정전을 견딘 집',
      code: '<p>기와집</p>',
      imageUrls: [],
      tmpYn: false,
      recommendedTag: [],
    },
  });

  await store!.stop();

  // During the outage a request gets an envelope from the service, well inside the gateway's 10 s, not a hang.
  const [houses] = e2e!.system.services.houses!;
  const during = await fetch(`${houses.url}/api/v1/houses`, { signal: AbortSignal.timeout(9_000) });
  expect(during.status).toBe(503);
  expect(await during.json()).toEqual({ code: 'C0000', message: '서비스를 일시적으로 사용할 수 없습니다.' });

  // Beyond the limit every service gives up and the launcher starts it again (and again, while the store is away).
  await eventually(() => services().every((handle) => handle.restarts > 0), 90_000, 250);
  for (const handle of services()) {
    expect(handle.output.join('')).toMatch(new RegExp(`\\[launcher\\] ${handle.name} exited \\(code 1\\); restarting in \\d+ ms`));
  }

  store = await startStore();

  await eventually(async () => (await Promise.all(services().map(healthy))).every(Boolean), 120_000, 250);
  // Through the gateway: what was stored before the outage, and a new write.
  expect((await e2e!.ok<{ title: string }>('GET', `/api/v1/houses/${houseId}`)).title).toBe('정전을 견딘 집');
  const boardId = await e2e!.ok<number>('POST', '/api/v1/boards', {
    token: bearer({ userId: 720_002 }),
    body: { title: '돌아왔다', code: '<p>다시 씁니다</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  expect(Number.isInteger(boardId)).toBe(true);
});
