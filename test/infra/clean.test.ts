/**
 * `npm run clean` (scripts/clean.ts): a data folder's streams leave the broker with it, and nothing is
 * forgotten while the broker that holds them is away.
 */
import { STREAMS } from '@binzip/events';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger, EventBus } from '@binzip/shared';
import { freePort } from '../../scripts/lib/server-process';
import { REPO_ROOT } from '../../scripts/lib/system';
import { isolatedNames, testEnv } from '../support';

jest.setTimeout(60_000);

const run = promisify(execFile);
let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'binzip-clean-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A data folder as `npm start` leaves it: its prefix file, and its streams on the run's broker. */
async function dataFolderWithStreams(name: string): Promise<{ dataDir: string; bus: EventBus }> {
  const dataDir = path.join(root, name);
  const prefix = isolatedNames(name).natsPrefix;
  mkdirSync(path.join(dataDir, 'keys'), { recursive: true });
  writeFileSync(path.join(dataDir, 'nats-prefix'), `${prefix}\n`);
  const bus = await EventBus.connect({ url: testEnv().natsUrl, prefix, name: 'clean-test', logger: createLogger('clean-test', 'silent') });
  await bus.ensureStreams(STREAMS);
  return { dataDir, bus };
}

const clean = (dataDir: string, natsUrl: string, ...args: string[]) =>
  run(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/clean.ts', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, NATS_URL: natsUrl, NATS_PREFIX: undefined },
  }).then(
    (done) => ({ code: 0, out: done.stdout + done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, out: failed.stdout + failed.stderr }),
  );

const streamsLeft = async (bus: EventBus) => {
  const { manager } = bus;
  const left: string[] = [];
  for (const name of ['ACCOUNTS', 'COMMUNITY', 'RECORDS', 'HOUSES', 'DEAD_LETTERS'] as const) {
    if (
      await manager.streams.info(bus.streamName(name)).then(
        () => true,
        () => false,
      )
    )
      left.push(name);
  }
  return left;
};

test('deletes the data folder’s streams from the broker, then the folder', async () => {
  const { dataDir, bus } = await dataFolderWithStreams('cleanall');
  try {
    expect(await streamsLeft(bus)).toHaveLength(5);
    const result = await clean(dataDir, testEnv().natsUrl);
    expect(result).toMatchObject({ code: 0 });
    expect(result.out).toContain(`deleted streams ${bus.streamName('ACCOUNTS')}`);
    expect(await streamsLeft(bus)).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  } finally {
    await bus.deleteStreams();
    await bus.close();
  }
});

test('--keep-data deletes only the streams; an unreachable broker leaves streams and folder for a later run', async () => {
  const { dataDir, bus } = await dataFolderWithStreams('cleankeep');
  try {
    const away = await clean(dataDir, `nats://127.0.0.1:${await freePort()}`);
    expect(away.code).toBe(1);
    expect(away.out).toContain('unreachable');
    expect(existsSync(path.join(dataDir, 'nats-prefix'))).toBe(true);
    expect(await streamsLeft(bus)).toHaveLength(5);

    expect(await clean(dataDir, testEnv().natsUrl, '--keep-data')).toMatchObject({ code: 0 });
    expect(await streamsLeft(bus)).toEqual([]);
    expect(existsSync(path.join(dataDir, 'nats-prefix'))).toBe(true);
  } finally {
    await bus.deleteStreams();
    await bus.close();
  }
});
