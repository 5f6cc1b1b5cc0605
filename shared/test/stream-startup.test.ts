/**
 * A process starting while JetStream cannot answer (a three-node cluster without a majority, as a new cluster is
 * until its nodes find each other) asks its stream check again until the cluster answers, within its start-up
 * bound, instead of exiting on the first unanswered request (containers:up with NATS_NODES=3 saw processes exit
 * and be restarted). On the project's own three-node cluster (scripts/lib/nats-cluster.ts), never the shared broker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsCluster, type NatsCluster } from '../../scripts/lib/nats-cluster';
import { isolatedNames } from '../../test/support';
import { createLogger, EventBus } from '../src';
import { SYSTEM_STREAMS } from './fixtures/streams';

jest.setTimeout(120_000);

let cluster: NatsCluster;
let storeDir: string;
let bus: EventBus | undefined;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'stream-startup-'));
  // One node of three running: a cluster still forming, with no majority to answer for JetStream.
  cluster = await startNatsCluster({ storeDir, startNow: 1 });
});

afterAll(async () => {
  await bus?.close();
  await cluster?.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

test('a process connecting to a cluster that is still forming waits for it within its bound, then checks its streams; asked once, it fails', async () => {
  const warnings: Array<Record<string, unknown>> = [];
  const base = createLogger('stream-startup-test', 'silent');
  const logger = new Proxy(base, {
    get: (target, key, receiver) =>
      key === 'warn'
        ? (message: string, meta: Record<string, unknown> = {}) => warnings.push({ message, ...meta })
        : (Reflect.get(target, key, receiver) as unknown),
  });
  const { natsPrefix: prefix } = isolatedNames('stream-startup');
  const options = { url: cluster.nodes[0].uri, prefix, name: 'stream-startup', logger, streams: { replicas: 3 } };

  // Asked once (no patience), the forming cluster's silence is a failure, and the connection is not left open.
  await expect(EventBus.connect(options)).rejects.toThrow();

  const patient = EventBus.connect({ ...options, patienceMs: 90_000 }).then(async (connected) => {
    bus = connected;
    await connected.ensureStreamsPatiently(SYSTEM_STREAMS, 90_000);
  });
  let settled = false;
  void patient.then(
    () => (settled = true),
    () => (settled = true),
  );
  // Longer than one request's timeout (10 s): the first attempt goes unanswered, and it asks again.
  await new Promise((r) => setTimeout(r, 14_000));
  expect(settled).toBe(false);
  await Promise.all([cluster.nodes[1].start(), cluster.nodes[2].start()]);
  await expect(patient).resolves.toBeUndefined();
  expect(warnings.filter((w) => w.message === 'JetStream did not answer; asking again').length).toBeGreaterThan(0);
  // The streams exist, kept on the three nodes.
  expect((await bus!.manager.streams.info(bus!.streamName('COMMUNITY'))).config.num_replicas).toBe(3);
});
