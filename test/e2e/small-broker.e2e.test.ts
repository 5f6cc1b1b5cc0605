/**
 * The whole system on a small broker (issue 25): a nats-server of its own whose JetStream store holds 320 MiB (two systems' 144 MiB each),
 * as a small production volume would. Every process starts on it with the default stream ceilings, starts again
 * on the same streams (a restart updates them in place, reserving nothing more), and a second data folder's
 * system fits beside the first. A ceiling the store cannot hold stops a service with the setting named.
 * Needs the built processes (`npx tsc -b`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startNatsServer } from '../../scripts/lib/nats';
import { SERVICES, startSystem } from '../../scripts/lib/system';
import { testEnv } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(240_000);

let dataDir: string;
let broker: Awaited<ReturnType<typeof startNatsServer>> | undefined;
const systems: E2eSystem[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-small-broker-'));
  broker = await startNatsServer({ storeDir: path.join(dataDir, 'nats'), maxFileStoreMiB: 320 });
});

afterAll(async () => {
  for (const system of systems) await system.stop().catch(() => undefined);
  await broker?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every stream on the broker with its byte ceiling. */
async function streamsOnBroker(): Promise<Record<string, number>> {
  const connection = await connect({ servers: broker!.uri });
  try {
    const manager = await jetstreamManager(connection);
    const found: Record<string, number> = {};
    for await (const stream of manager.streams.list()) found[stream.config.name] = stream.config.max_bytes;
    return found;
  } finally {
    await connection.close();
  }
}

const ready = async (url: string) => (await fetch(`${url}/ready`, { signal: AbortSignal.timeout(10_000) })).status;

test('the whole system starts on a 320 MiB JetStream store, twice in a row, and a second data folder fits beside it', async () => {
  const first = await startE2eSystem('smallbroker', { services: [...SERVICES], natsUrl: broker!.uri });
  systems.push(first);
  expect(await ready(first.url)).toBe(200);
  const streamName = (name: string) => `${first.names.natsPrefix.toUpperCase()}_${name}`;
  const MiB = 1024 ** 2;
  expect(await streamsOnBroker()).toEqual({
    [streamName('ACCOUNTS')]: -1,
    [streamName('COMMUNITY')]: 32 * MiB,
    [streamName('RECORDS')]: 32 * MiB,
    [streamName('HOUSES')]: 32 * MiB,
    [streamName('AUDIT')]: 32 * MiB,
    [streamName('SESSIONS')]: 8 * MiB,
    [streamName('DEAD_LETTERS')]: 8 * MiB,
  });

  // The same data folder started again: the processes find their streams and update them in place.
  await first.system.stop();
  const env = testEnv();
  const again = await startSystem({
    mongoUri: env.mongoUri,
    natsUrl: broker!.uri,
    publicKey: env.publicKey,
    privateKey: env.privateKey,
    dbPrefix: `${first.names.db}_`,
    natsPrefix: first.names.natsPrefix,
  });
  try {
    expect(await ready(again.url)).toBe(200);
    expect(Object.keys(await streamsOnBroker())).toHaveLength(7);
  } finally {
    await again.stop();
  }

  // Another data folder (a fresh prefix) on the same broker while the first folder's streams are still there.
  const second = await startE2eSystem('smallbroker2', { services: [...SERVICES], natsUrl: broker!.uri });
  systems.push(second);
  expect(await ready(second.url)).toBe(200);
  expect(Object.keys(await streamsOnBroker())).toHaveLength(14);
});

test('a stream ceiling the store cannot hold stops the service with an error naming the setting', async () => {
  const started = startE2eSystem('smallbrokertoolarge', {
    services: ['community'],
    natsUrl: broker!.uri,
    env: { EVENT_STREAM_MAX_MIB: '200', LOG_LEVEL: 'error' },
    restartBackoffMs: [],
  });
  await expect(started).rejects.toThrow(/community exited \(1\)[\s\S]*lower EVENT_STREAM_MAX_MIB[\s\S]*start-up failed/);
});
