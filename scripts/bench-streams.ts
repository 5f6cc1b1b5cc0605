/**
 * Issue 38 item 4: what idle live streams cost. The built gateway and notifications processes on throw-away
 * stores; members open `GET /api/v1/notifications/stream` through the gateway (each with its own token, as
 * browsers would) in steps up to `--streams`, and after each step the bench prints both processes' resident
 * memory and open descriptors, and the memory per stream over the idle baseline. With every stream open it
 * checks that they still get their heartbeats past the gateway's 10 s, measures the CPU the heartbeats cost, and
 * times ordinary requests through the same gateway (they must all answer). Asserts nothing; prints figures.
 *
 *   npm run bench:streams -- [--streams 5000] [--step 1000]
 *
 * Needs as many open files as twice the streams plus a margin in this shell (`ulimit -n`): the bench holds one
 * descriptor per stream, the gateway two, notifications one.
 */
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { signAccessToken } from '../shared/src';
import { cpuMs, numberArg as arg, rssMiB, startBenchStores } from './lib/bench-stores';
import { startSystem, type RunningSystem } from './lib/system';

const fds = (pid: number | undefined) => (pid === undefined ? 0 : readdirSync(`/proc/${pid}/fd`).length);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface OpenStream {
  req: http.ClientRequest;
  /** When it last received anything (an event or a `: ping`). */
  lastData: number;
}

function openStream(url: string, token: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const stream: OpenStream = { req: undefined as unknown as http.ClientRequest, lastData: 0 };
    stream.req = http.get(`${url}/api/v1/notifications/stream`, { agent: false, headers: { authorization: token } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`stream answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.on('data', () => {
        if (stream.lastData === 0) resolve(stream);
        stream.lastData = Date.now();
      });
      res.on('error', () => undefined);
    });
    stream.req.on('error', reject);
  });
}

/** 500 ordinary requests through the gateway, 10 at a time: their statuses and latency. */
async function ordinary(url: string, tokenOf: (userId: number) => string, members: number, when: string): Promise<void> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const left = Array.from({ length: 500 }, (_, i) => i);
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let i = left.shift(); i !== undefined; i = left.shift()) {
        const started = performance.now();
        const res = await fetch(`${url}/api/v1/notifications?size=5`, { headers: { authorization: tokenOf(1 + (i % members)) } });
        await res.text();
        latencies.push(performance.now() - started);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
  console.log(`500 ordinary requests ${when}: statuses ${JSON.stringify(Object.fromEntries(statuses))}, p50 ${pct(50)} ms, p99 ${pct(99)} ms`);
}

async function main(): Promise<void> {
  const total = arg('streams', 5_000);
  const step = arg('step', 1_000);
  const stores = await startBenchStores('streams', ['notifications']);
  let system: RunningSystem | undefined;
  stores.stopSystem = async () => system?.stop();
  const streams: OpenStream[] = [];
  try {
    system = await startSystem({
      mongoUri: stores.mongo.uri,
      natsUrl: stores.nats.uri,
      publicKey: stores.keys.publicKey,
      privateKey: stores.keys.privateKey,
      services: ['notifications'],
      dbPrefix: stores.dbPrefix,
      natsPrefix: stores.natsPrefix,
      env: { LOG_LEVEL: 'error' },
      readyTimeoutMs: 120_000,
    });
    const running = system;
    const gateway = running.gateway.child.pid;
    const notifications = running.services.notifications?.[0]?.child.pid;
    const tokenOf = (userId: number) =>
      `Bearer ${signAccessToken({ userId, userName: `m${userId}`, authority: 'USER', userType: 'NONE' }, stores.keys.privateKey, 3_600)}`;
    const row = (count: number, base?: { gateway: number; notifications: number }) => {
      const g = rssMiB(gateway ?? 0);
      const n = rssMiB(notifications ?? 0);
      const per = (now: number, then: number) => (count > 0 && base ? `${(((now - then) * 1024) / count).toFixed(1)} KiB` : '-');
      console.log(
        `${String(count).padStart(6)} streams  gateway ${String(g).padStart(4)} MiB (${per(g, base?.gateway ?? 0)}/stream, ${fds(gateway)} fds)  ` +
          `notifications ${String(n).padStart(4)} MiB (${per(n, base?.notifications ?? 0)}/stream, ${fds(notifications)} fds)`,
      );
      return { gateway: g, notifications: n };
    };

    // Warm both processes with a few ordinary requests and streams, then take the idle baseline.
    for (let i = 0; i < 50; i++) await fetch(`${running.url}/api/v1/notifications`, { headers: { authorization: tokenOf(1) } }).then((r) => r.text());
    await Promise.all(Array.from({ length: 20 }, (_, i) => openStream(running.url, tokenOf(900_000 + i)).then((s) => s.req.destroy())));
    await sleep(3_000);
    await ordinary(running.url, tokenOf, total, 'with no stream open');
    const base = row(0);

    while (streams.length < total) {
      const target = Math.min(total, streams.length + step);
      const queue = Array.from({ length: target - streams.length }, (_, i) => streams.length + i + 1);
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          for (let userId = queue.shift(); userId !== undefined; userId = queue.shift()) streams.push(await openStream(running.url, tokenOf(userId)));
        }),
      );
      await sleep(3_000);
      row(streams.length, base);
    }

    // Idle past the gateway's 10 s answer timeout: every stream still hears its heartbeats.
    const cpuBefore = { gateway: cpuMs(gateway), notifications: cpuMs(notifications) };
    const idleStart = Date.now();
    await sleep(15_000);
    const idleSeconds = (Date.now() - idleStart) / 1000;
    const heard = streams.filter((s) => s.lastData > idleStart + 5_000).length;
    console.log(
      `after ${idleSeconds.toFixed(0)} s idle: ${heard} of ${streams.length} streams heard a heartbeat in the last 10 s; CPU for the heartbeats: ` +
        `gateway ${((cpuMs(gateway) - cpuBefore.gateway) / idleSeconds).toFixed(0)} ms/s, notifications ${((cpuMs(notifications) - cpuBefore.notifications) / idleSeconds).toFixed(0)} ms/s`,
    );

    await ordinary(running.url, tokenOf, total, `with ${streams.length} streams open`);

    // Closed by the clients: how long until both processes have let go of them, and what memory they keep.
    for (const stream of streams.splice(0)) stream.req.destroy();
    const closedAt = Date.now();
    while (fds(gateway) > 100 && Date.now() - closedAt < 30_000) await sleep(250);
    console.log(`every stream closed by its client: the gateway's descriptors back under 100 after ${((Date.now() - closedAt) / 1000).toFixed(1)} s`);
    await sleep(3_000);
    row(0);
  } finally {
    for (const stream of streams) stream.req.destroy();
    await stores.cleanUp();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
