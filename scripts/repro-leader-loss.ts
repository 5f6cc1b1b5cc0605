/**
 * The bench's NATS phases on a bare three-node cluster (issue 37, "a stream leader lost for good"): two relays
 * publish under message ids (one event at a time, again after 500 ms when a publish fails), the COMMUNITY stream's
 * leader is killed and started again, the next one frozen and thawed, then the leader is killed for good; every 5 s
 * it prints the stream's leader and last sequence and each relay's queue. Ends with `STALL` or `recovered`.
 *
 *   tsx scripts/repro-leader-loss.ts [freezeSeconds=30] [downSeconds=60]
 *   REPRO_STEER=1   step the lead onto the node killed earlier before the last kill (as in both bench stalls)
 *   REPRO_DUP=0.3   publish that share of events twice (a second replica's relay), so the stream counts duplicates
 *   REPRO_COPIES=1  send an unanswered event again as 4, 16, 64, 256 copies (the outbox relay's way, outbox.ts)
 *
 * On nats-server 2.9.10, REPRO_STEER=1 REPRO_DUP=0.3 stalled (docs/operations.md); without duplicates it recovered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsCluster } from './lib/nats-cluster';
import { createLogger, defineStream, EventBus } from '../shared/src';
import { randomUUID } from 'node:crypto';

const freezeSeconds = Number(process.argv[2] ?? 30);
const downSeconds = Number(process.argv[3] ?? 60);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const log = (m: string) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} ${m}`);

const COMMUNITY = defineStream({ name: 'COMMUNITY', subjects: ['community.>'], purpose: 'events' });

async function main() {
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'repro-leader-'));
  const cluster = await startNatsCluster({ storeDir });
  const logger = createLogger('repro', 'silent');
  const prefix = 'repro';
  const probe = await EventBus.connect({ url: cluster.uri, prefix, name: 'probe', logger, streams: { replicas: 3 }, patienceMs: 60_000 });
  // A new cluster makes streams with three replicas only once it has elected its meta leader.
  await probe.ensureStreamsPatiently([COMMUNITY], 60_000);
  log('stream made');
  let stop = false;
  const relays = await Promise.all(
    [0, 1].map(async (i) => {
      const bus = await EventBus.connect({ url: cluster.uri, prefix, name: `relay${i}`, logger, streams: { replicas: 3 } });
      const relay = { i, bus, queue: [] as string[], published: 0, lastOk: Date.now(), lastError: '', errors: 0, unanswered: 0 };
      void (async () => {
        while (!stop) {
          if (Math.random() < 0.3) relay.queue.push(randomUUID());
          while (relay.queue.length > 0 && !stop) {
            const id = relay.queue[0];
            try {
              const copies = process.env.REPRO_COPIES === '1' && relay.unanswered > 0 ? Math.min(4 ** relay.unanswered, 256) : 1;
              await bus.publish('community.comment.created', { id }, id, { copies });
              relay.unanswered = 0;
              // A second replica's relay publishing the same event (REPRO_DUP: how often).
              if (Math.random() < Number(process.env.REPRO_DUP ?? 0)) await bus.publish('community.comment.created', { id }, id).catch(() => undefined);
              relay.queue.shift();
              relay.published++;
              relay.lastOk = Date.now();
            } catch (err) {
              relay.errors++;
              relay.unanswered = (err as Error).name === 'TimeoutError' ? relay.unanswered + 1 : 0;
              relay.lastError = `${(err as Error).name}: ${(err as Error).message}`;
              await sleep(500);
            }
          }
          await sleep(100);
        }
      })();
      return relay;
    }),
  );
  const state = async () => {
    const info = await probe.manager.streams.info(probe.streamName('COMMUNITY')).catch(() => undefined);
    const reps = (info?.cluster?.replicas ?? []).map((r) => `${r.name}${r.current ? '' : '(behind)'}${r.offline ? '(offline)' : ''}`).join(',');
    return `leader ${info?.cluster?.leader ?? '?'} [${reps}] last_seq ${info?.state.last_seq ?? '?'} | ${relays
      .map(
        (r) =>
          `r${r.i} q=${r.queue.length} ok=${r.published} stale=${((Date.now() - r.lastOk) / 1000).toFixed(0)}s err=${r.errors} ${r.lastError.slice(0, 60)}`,
      )
      .join(' | ')}`;
  };
  const leader = async () => {
    const info = await probe.manager.streams.info(probe.streamName('COMMUNITY'));
    return cluster.nodes.find((n) => n.name === info.cluster?.leader)!;
  };
  const watch = async (seconds: number) => {
    for (let s = 0; s < seconds; s += 5) {
      await sleep(5_000);
      log(await state());
    }
  };
  await watch(10);
  const killed = await leader();
  log(`SIGKILL ${killed.name} (back after ${freezeSeconds} s)`);
  killed.child()?.kill('SIGKILL');
  await watch(freezeSeconds);
  await killed.start();
  log(`${killed.name} started again`);
  await watch(10);
  const frozen = await leader();
  log(`SIGSTOP ${frozen.name} ${freezeSeconds} s`);
  frozen.child()?.kill('SIGSTOP');
  await watch(freezeSeconds);
  frozen.child()?.kill('SIGCONT');
  log(`SIGCONT ${frozen.name}`);
  await watch(10);
  // Steer (REPRO_STEER=1): the lead onto the node killed and restarted earlier, as in both stalls.
  for (let i = 0; process.env.REPRO_STEER === '1' && i < 10 && (await leader()).name !== killed.name; i++) {
    await probe.connection.request(`$JS.API.STREAM.LEADER.STEPDOWN.${probe.streamName('COMMUNITY')}`, '', { timeout: 5_000 }).catch(() => undefined);
    await sleep(3_000);
    log(`stepped down: ${await state()}`);
  }
  const lost = await leader();
  log(`SIGKILL ${lost.name} for good (earlier killed ${killed.name}, frozen ${frozen.name})`);
  lost.child()?.kill('SIGKILL');
  const killedAt = Date.now();
  await watch(downSeconds);
  const stalled = relays.filter((r) => r.lastOk < killedAt + 15_000 || r.queue.length > 5);
  log(stalled.length > 0 ? `STALL: relays ${stalled.map((r) => r.i).join(',')}` : 'recovered');
  stop = true;
  for (const r of relays) await r.bus.connection.close();
  await probe.connection.close();
  await cluster.stop();
  rmSync(storeDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
