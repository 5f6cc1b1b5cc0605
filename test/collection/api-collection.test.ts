/**
 * The Bruno collection (api-collection/) as a front-end team runs it: Bruno's own CLI (`bru run`, @usebruno/cli)
 * against a fresh system (the built gateway and every service, run `npx tsc -b` first) with the two
 * administrators the collection signs in as (ADMIN_BOOTSTRAP, as an operator seeds them) and the local sender's
 * outbox, where the code requests read the codes. Every request must pass its assertions (status 200 and
 * `code` SUCCESS; the pictures' status). Not part of `npm test` (four minutes on a loaded machine): `npm run
 * test:collection`, which .ci/run runs once.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import webpush from 'web-push';
import { COLLECTION_ACCOUNTS, COLLECTION_DIR } from '../../scripts/lib/collection';
import { REPO_ROOT } from '../../scripts/lib/system';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(300_000);

const run = promisify(execFile);
const BRU = path.join(REPO_ROOT, 'node_modules', '.bin', 'bru');
const admin = (account: { userName: string; password: string }, nick: string, phone: string) => ({
  ...account,
  nick_name: nick,
  phone_num: phone,
  email: `${account.userName}@contract.example`,
  userType: 'WEB',
});

const work = mkdtempSync(path.join(os.tmpdir(), 'api-collection-run-'));
const outboxDir = path.join(work, 'outbox');
let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('brunorun', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
    env: {
      LOG_LEVEL: 'warn',
      BCRYPT_COST: '4',
      DEV_OUTBOX_DIR: outboxDir,
      // Web Push on, so the recorded subscription (a local push sink's address) is taken; nothing is sent to it.
      ...(() => {
        const vapid = webpush.generateVAPIDKeys();
        return {
          VAPID_PUBLIC_KEY: vapid.publicKey,
          VAPID_PRIVATE_KEY: vapid.privateKey,
          VAPID_SUBJECT: 'mailto:ops@binzip.test',
          PUSH_ENDPOINT_HOSTS: '127.0.0.1',
        };
      })(),
      ADMIN_BOOTSTRAP: JSON.stringify([
        admin(COLLECTION_ACCOUNTS.admin, '계약관리자', '01066660001'),
        admin(COLLECTION_ACCOUNTS.reviewer, '계약검토자', '01066660002'),
      ]),
    },
  });
}, 180_000);

afterAll(async () => {
  await e2e?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The collection's request files (`tag/operation.bru`), as bru names them in its report. */
function requestFiles(): string[] {
  return readdirSync(COLLECTION_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'environments' && entry.name !== 'fixtures')
    .flatMap((folder) =>
      readdirSync(path.join(COLLECTION_DIR, folder.name))
        .filter((file) => file.endsWith('.bru') && file !== 'folder.bru')
        .map((file) => `${folder.name}/${file}`),
    );
}

interface BruResult {
  test: { filename: string };
  request: { method: string; url: string };
  response: { status: number; data?: unknown };
  error?: string | null;
  assertionResults?: Array<{ lhsExpr: string; rhsExpr: string; status: string; error?: string }>;
  testResults?: Array<{ description: string; status: string; error?: string }>;
}

test('every request of the collection passes against a fresh system, run by Bruno’s CLI', async () => {
  expect(existsSync(BRU)).toBe(true);
  const report = path.join(work, 'report.json');
  // A copy: bru writes what the scripts leave in the environment back into its file.
  const collection = path.join(work, 'collection');
  cpSync(COLLECTION_DIR, collection, { recursive: true });
  await run(
    BRU,
    [
      'run',
      '-r',
      '--env',
      'local',
      '--env-var',
      `baseUrl=${e2e.url}`,
      '--env-var',
      `outboxDir=${outboxDir}`,
      '--sandbox',
      'developer',
      '--reporter-json',
      report,
    ],
    { cwd: collection, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { code?: number }) => {
    // bru exits non-zero when a request fails; the report below says which.
    if (typeof err.code !== 'number') throw err;
  });
  const results = (JSON.parse(readFileSync(report, 'utf8')) as Array<{ results: BruResult[] }>)[0].results;
  const failed = results
    .filter((r) => r.error || [...(r.assertionResults ?? []), ...(r.testResults ?? [])].some((a) => a.status !== 'pass'))
    .map((r) => ({
      file: r.test.filename,
      request: `${r.request.method} ${r.request.url}`,
      status: r.response.status,
      answer: JSON.stringify(r.response.data ?? null).slice(0, 300),
      error: r.error ?? [...(r.assertionResults ?? []), ...(r.testResults ?? [])].find((a) => a.status !== 'pass')?.error,
    }));
  expect(failed).toEqual([]);
  // Nothing skipped: one result per request file.
  expect(results.map((r) => r.test.filename).sort()).toEqual(requestFiles().sort());
});
