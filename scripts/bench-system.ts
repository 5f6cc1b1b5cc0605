/**
 * Scaling houses alone (issue 37 item 5): the house list and detail mix through the real gateway to one, two and
 * three houses instances. Three systems run side by side on the same store and listings (a gateway in front of 1,
 * of 2 and of 3 houses processes), and the rounds alternate between them (1, 2, 3, 3, 2, 1, …) so a change in the
 * machine's load falls on all three alike; each figure is the median of its rounds. The load comes from the site
 * bench's generator in its own process (scripts/lib/site-load.ts, closed loop, `--connections`), with the site
 * mix's weights of house lists (with filters and pages) and house details.
 *
 * Prints per system: throughput, p50/p99, CPU milliseconds per request of houses (its instances summed), the
 * gateway and the store, and each part's CPU as a share of one core (where it saturates); then the same for the
 * load generator. Asserts nothing.
 *
 *   npm run bench:system -- [--count 1000] [--seconds 10] [--connections 32 | --rate 300 | --rate-per-instance 130]
 *     [--rounds 3] [--max-instances 3 | --instances 1,3] [--no-cache] [--affinity path|off] [--warm-up-seconds 0]
 *     [--node-args '--trace-gc'] [--output-dir DIR] [--variant-node-args '--max-opt=1']
 *
 * `--rate` sends that many requests a second whatever the answers do (open loop) instead of keeping `--connections`
 * busy: the CPU per request at a rate every system keeps up with, where none of them batches more work per wake-up
 * than another. `--rate-per-instance` gives each system that rate times its houses instances, so every instance
 * serves the same rate in every system: what is left of a difference in CPU per request is not how busy each
 * instance is. `--affinity` sets the gateway's `UPSTREAM_READ_AFFINITY` (else its default). At the end, each
 * houses instance's own counters (`/metrics`): the share of the requests it served and how many answers it computed
 * rather than took from its response cache, over every round and warm-up.
 *
 * `--warm-up-seconds` loads each system that long before the first round (its processes' JIT settles: below).
 * `--node-args` gives every process of the bench's systems those node flags (`--trace-gc`, `--cpu-prof`), and
 * `--output-dir` keeps each process's output there, each chunk stamped with the bench's clock (with the end of each
 * round printed on the same clock). `--variant-node-args` starts a second system of each size whose processes also
 * get those flags, its rounds taken in turn with the others: an A/B of node flags under the same machine load.
 * `--instances 1,3` picks the sizes. Besides the table: per system, the requests that reached houses and the
 * houses CPU per such request (what reaches houses is answers a second, not a share of the requests: the rate of
 * the whole skews the CPU per request), and the houses and gateway CPU split by thread (main; V8's and libuv's
 * others: concurrent compiling, GC), in the kernel, and minor page faults.
 *
 * Each instance keeps its own response cache (about a second per answer), so more instances share the same
 * requests among more caches and answer fewer of them from memory; `--no-cache` keeps no answers
 * (`RESPONSE_CACHE_MAX_BYTES=0`: concurrent identical requests still wait for the first) and shows the cost per
 * request without that effect.
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts throw-away stores. On a 2-core machine the generator, the
 * gateway, the instances and the store share the cores: read the CPU per request and the shares, not the req/s
 * as capacity.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { connectMongo } from '../shared/src';
import { cpuMs, listenerPid, numberArg as arg, rssMiB, startBenchStores, startHousesSystem, textArg } from './lib/bench-stores';
import { Loader, type LoadResult, type LoadSpec } from './lib/site-load';
import type { RunningSystem } from './lib/system';
import { seedHouses } from './seed-houses';

/** The site mix's house kinds, with its weights (20 lists, 15 details per 100 requests; bench:site). */
const MIX: LoadSpec['mix'] = { houseList: 20, houseDetail: 15 };
const PARTS = ['houses', 'gateway', 'store'] as const;
type Part = (typeof PARTS)[number];

interface Round {
  load: LoadResult;
  /** CPU ms per request by part. */
  perRequest: Record<Part, number>;
  /**
   * CPU ms per request of the houses processes and of the gateway, split by thread: the main thread (JavaScript,
   * the event loop, GC pauses) and the rest (V8's helper threads: concurrent marking and sweeping, compiling
   * optimized code; libuv's pool).
   */
  threads: Record<'houses' | 'gateway', ThreadCpu>;
  /** Requests that reached the houses instances in the round, and answers they computed (not from their memory). */
  houses: { requests: number; computed: number };
  /**
   * Times the houses instances' main threads went to sleep (voluntary context switches: an event loop with nothing
   * left to do) and were taken off a core (involuntary), per request: how many wake-ups a request costs.
   */
  switches: { voluntary: number; involuntary: number };
  /** CPU by part as a share of one core over the round, in per cent; `generator` is the load's own process. */
  share: Record<Part | 'generator', number>;
}

interface Target {
  instances: number;
  /** `x3`, or `x3 <variant's flags>` for a system started with `--variant-node-args`. */
  label: string;
  /** The variant's node flags, '' for the plain systems. */
  variant: string;
  system: RunningSystem;
  pids: Record<Part, number[]>;
}

/** CPU ms a system's own processes have used so far, by part (the store is every system's). */
const ownCpu = (target: Target) => ({
  houses: target.pids.houses.reduce((sum, pid) => sum + cpuMs(pid), 0),
  gateway: target.pids.gateway.reduce((sum, pid) => sum + cpuMs(pid), 0),
});

/**
 * What a system's processes use with no request at all (the gateway's readiness probes, NATS pulls and
 * heartbeats, timers), in CPU ms per second by part: taken while the other systems carry the load.
 */
interface Idle {
  houses: number;
  gateway: number;
  seconds: number;
}

/**
 * CPU ms a process's main thread (tid = pid) and its other threads have used so far, how much of it in the kernel
 * (`system`), and its minor page faults (`faults`, a count); zeros when it is gone.
 */
interface ThreadCpu {
  main: number;
  helpers: number;
  system: number;
  faults: number;
}
function threadCpuMs(pid: number): ThreadCpu {
  let main = 0;
  let helpers = 0;
  let system = 0;
  let faults = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
        const ms = (Number(fields[11]) + Number(fields[12])) * 10;
        system += Number(fields[12]) * 10;
        faults += Number(fields[7]);
        if (Number(tid) === pid) main += ms;
        else helpers += ms;
      } catch {
        // a thread that ended meanwhile
      }
    }
  } catch {
    // the process is gone
  }
  return { main, helpers, system, faults };
}

const threadsOf = (pids: readonly number[]): ThreadCpu =>
  pids
    .map(threadCpuMs)
    .reduce((sum, t) => ({ main: sum.main + t.main, helpers: sum.helpers + t.helpers, system: sum.system + t.system, faults: sum.faults + t.faults }), {
      main: 0,
      helpers: 0,
      system: 0,
      faults: 0,
    });

/** A process's main thread's context switches so far (`/proc/<pid>/status`); zeros when it is gone. */
function contextSwitches(pid: number): { voluntary: number; involuntary: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { voluntary: field('voluntary_ctxt_switches'), involuntary: field('nonvoluntary_ctxt_switches') };
  } catch {
    return { voluntary: 0, involuntary: 0 };
  }
}

async function measure(loader: Loader, target: Target, spec: Omit<LoadSpec, 'url'>, metricsToken: string): Promise<Round> {
  // The instances' counters are read outside the CPU window (a scrape costs the instance some CPU).
  const reached = async () =>
    (await instanceCounters(target, metricsToken)).reduce((sum, c) => ({ requests: sum.requests + c.requests, computed: sum.computed + c.computed }), {
      requests: 0,
      computed: 0,
    });
  const reachedBefore = await reached();
  const sample = () => ({ ...ownCpu(target), store: target.pids.store.reduce((sum, pid) => sum + cpuMs(pid), 0), generator: cpuMs(loader.pid) });
  const switchesOf = () =>
    target.pids.houses.map(contextSwitches).reduce((sum, c) => ({ voluntary: sum.voluntary + c.voluntary, involuntary: sum.involuntary + c.involuntary }), {
      voluntary: 0,
      involuntary: 0,
    });
  const threadsSample = () => ({ houses: threadsOf(target.pids.houses), gateway: threadsOf(target.pids.gateway) });
  const before = sample();
  const switchesBefore = switchesOf();
  const threadsBefore = threadsSample();
  const load = await loader.run({ ...spec, url: target.system.url });
  const after = sample();
  const switchesAfter = switchesOf();
  const threadsAfter = threadsSample();
  const reachedAfter = await reached();
  const count = Math.max(1, load.count);
  const houses = { requests: reachedAfter.requests - reachedBefore.requests, computed: reachedAfter.computed - reachedBefore.computed };
  const threads = {} as Round['threads'];
  for (const part of ['houses', 'gateway'] as const) {
    const per = (key: keyof ThreadCpu) => (threadsAfter[part][key] - threadsBefore[part][key]) / count;
    threads[part] = { main: per('main'), helpers: per('helpers'), system: per('system'), faults: per('faults') };
  }
  const switches = {
    voluntary: (switchesAfter.voluntary - switchesBefore.voluntary) / count,
    involuntary: (switchesAfter.involuntary - switchesBefore.involuntary) / count,
  };
  const perRequest = {} as Record<Part, number>;
  const share = {} as Record<Part | 'generator', number>;
  for (const part of [...PARTS, 'generator'] as const) {
    const spent = after[part] - before[part];
    if (part !== 'generator') perRequest[part] = spent / count;
    share[part] = (spent / (load.seconds * 1000)) * 100;
  }
  return { load, perRequest, threads, switches, share, houses };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A counter's value summed over its series in a Prometheus text answer, those with `label` when given. */
function counterSum(text: string, name: string, label?: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    if (label !== undefined && !line.includes(label)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return sum;
}

/** Per houses instance: requests it answered on its API and answers it computed for its response cache. */
async function instanceCounters(target: Target, token: string): Promise<Array<{ requests: number; computed: number; fromMemory: number }>> {
  return Promise.all(
    (target.system.services.houses ?? []).map(async (instance) => {
      // An instance that exited during the run (and was started again) has lost its counters: nothing to show.
      const text = await fetch(`${instance.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
        .then((res) => res.text())
        .catch(() => '');
      return {
        requests: counterSum(text, 'http_request_duration_seconds_count', 'route="/api/v1/houses'),
        computed: counterSum(text, 'binzip_response_cache_answers_total', 'answered_by="computed"'),
        fromMemory: counterSum(text, 'binzip_response_cache_answers_total', 'answered_by="memory"'),
      };
    }),
  );
}

function report(targets: Target[], rounds: Map<string, Round[]>, idleOf: Map<string, Idle>): void {
  const mid = (label: string, get: (r: Round) => number) => median((rounds.get(label) ?? []).map(get));
  // Against the system of the fewest instances with the same flags.
  const vsOne = (label: string, get: (r: Round) => number) => {
    const variant = targets.find((t) => t.label === label)?.variant;
    const first = rounds.get(targets.find((t) => t.variant === variant)?.label ?? '') ?? [];
    return first.length ? ` (${(mid(label, get) / median(first.map(get))).toFixed(2)}x)` : '';
  };
  console.log(
    '\n| houses | req/s | p50 ms | p99 ms | errors | CPU ms/req houses | gateway | store | total | % of a core: houses / gateway / store / generator |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const { label } of targets) {
    const own = rounds.get(label) ?? [];
    const failures: Record<string, number> = {};
    for (const r of own) for (const [status, n] of Object.entries(r.load.all.failures)) failures[status] = (failures[status] ?? 0) + n;
    const errors = Object.entries(failures)
      .map(([status, n]) => `${n} × ${status}`)
      .join(', ');
    const total = (r: Round) => PARTS.reduce((sum, part) => sum + r.perRequest[part], 0);
    console.log(
      `| ${label.slice(1)} | ${mid(label, (r) => r.load.perSecond).toFixed(0)}${vsOne(label, (r) => r.load.perSecond)} ` +
        `| ${mid(label, (r) => r.load.all.p50).toFixed(1)} | ${mid(label, (r) => r.load.all.p99).toFixed(1)} | ${errors || 0} ` +
        PARTS.map((part) => `| ${mid(label, (r) => r.perRequest[part]).toFixed(3)}${vsOne(label, (r) => r.perRequest[part])} `).join('') +
        `| ${mid(label, total).toFixed(3)}${vsOne(label, total)} ` +
        `| ${(['houses', 'gateway', 'store', 'generator'] as const).map((part) => mid(label, (r) => r.share[part]).toFixed(0)).join(' / ')} |`,
    );
  }
  for (const { label } of targets) {
    const idle = idleOf.get(label);
    if (!idle || idle.seconds === 0) continue;
    const rate = (part: 'houses' | 'gateway') => idle[part] / idle.seconds;
    // A round's requests paid for the idle cost too; what is left is what serving them cost.
    const net = (part: 'houses' | 'gateway') => mid(label, (r) => r.perRequest[part] - rate(part) / r.load.perSecond);
    console.log(
      `houses ${label} idle: houses ${rate('houses').toFixed(1)} ms/s, gateway ${rate('gateway').toFixed(1)} ms/s; ` +
        `CPU ms/req less the idle cost: houses ${net('houses').toFixed(3)}, gateway ${net('gateway').toFixed(3)}`,
    );
  }
  for (const { label } of targets) {
    // What reaches houses is a number of answers a second more than a share of the requests (each lives 10 s):
    // CPU per request that reached it, and per answer it computed, compare the instances' own work.
    const housesCpu = (r: Round) => r.perRequest.houses * r.load.count;
    console.log(
      `houses ${label}: reached houses ${mid(label, (r) => r.houses.requests / r.load.seconds).toFixed(1)} req/s ` +
        `(${mid(label, (r) => (r.houses.requests / Math.max(1, r.load.count)) * 100).toFixed(2)} % of the requests), computed ${mid(label, (r) => r.houses.computed / r.load.seconds).toFixed(1)} answers/s; ` +
        `houses CPU ms per request that reached it ${mid(label, (r) => housesCpu(r) / Math.max(1, r.houses.requests)).toFixed(2)}${vsOne(label, (r) => housesCpu(r) / Math.max(1, r.houses.requests))}, ` +
        `houses CPU ms a second ${mid(label, (r) => housesCpu(r) / r.load.seconds).toFixed(1)}${vsOne(label, (r) => housesCpu(r) / r.load.seconds)}`,
    );
  }
  for (const { label, system } of targets) {
    const pids = [system.gateway.child.pid, ...(system.services.houses ?? []).map((h) => h.child.pid)].filter((p): p is number => p !== undefined);
    const kinds = (rounds.get(label) ?? []).map((r) => r.load.kinds);
    const p = (kind: 'houseList' | 'houseDetail', q: 'p50' | 'p99') => median(kinds.map((k) => k[kind]?.[q] ?? NaN)).toFixed(1);
    console.log(
      `houses ${label}: list p50/p99 ${p('houseList', 'p50')}/${p('houseList', 'p99')} ms, detail ${p('houseDetail', 'p50')}/${p('houseDetail', 'p99')} ms, ` +
        `rss gateway+houses ${rssMiB(pids)} MiB; houses main threads' context switches per request: ` +
        `${mid(label, (r) => r.switches.voluntary).toFixed(2)} asleep, ${mid(label, (r) => r.switches.involuntary).toFixed(2)} preempted; ` +
        (['houses', 'gateway'] as const)
          .map(
            (part) =>
              `${part} CPU ms/req main thread ${mid(label, (r) => r.threads[part].main).toFixed(4)} + other threads ${mid(label, (r) => r.threads[part].helpers).toFixed(4)} ` +
              `(in the kernel ${mid(label, (r) => r.threads[part].system).toFixed(4)}), minor page faults/req ${mid(label, (r) => r.threads[part].faults).toFixed(3)}`,
          )
          .join('; '),
    );
  }
}

async function main(): Promise<void> {
  const count = arg('count', 1_000);
  const seconds = arg('seconds', 10);
  const connections = arg('connections', 32);
  const roundCount = arg('rounds', 3);
  const maxInstances = arg('max-instances', 3);
  // Which systems: `--instances 1,3` (default 1 to `--max-instances`).
  const counts = textArg('instances', '').split(',').filter(Boolean).map(Number);
  const instanceCounts = counts.length > 0 ? counts : Array.from({ length: maxInstances }, (_, i) => i + 1);
  const noCache = process.argv.includes('--no-cache');
  const rate = arg('rate', 0);
  const ratePerInstance = arg('rate-per-instance', 0);
  const affinity = textArg('affinity', '');
  // Node flags of the bench's gateways and houses instances (`--trace-gc`, `--cpu-prof`), and a folder for each
  // process's output (what `--trace-gc` prints).
  const nodeArgs = textArg('node-args', '').split(' ').filter(Boolean);
  const outputDir = textArg('output-dir', '');
  // A second system of each size whose processes also get these flags, its rounds taken in turn with the others':
  // an A/B of node flags under the same machine load.
  const variantArgs = textArg('variant-node-args', '').split(' ').filter(Boolean);
  const variants = variantArgs.length > 0 ? ['', variantArgs.join(' ')] : [''];
  if (outputDir) mkdirSync(outputDir, { recursive: true });
  // The instances' own counters, read at the end (a fresh secret: the bench's processes only).
  const metricsToken = randomBytes(18).toString('base64url');
  // The bench's streams and database go away however it ends: done, failed, or interrupted (Ctrl-C).
  const stores = await startBenchStores('bench', ['houses']);
  const { mongo, dbPrefix } = stores;
  const targets: Target[] = [];
  let loader: Loader | undefined;
  stores.stopSystem = async () => {
    loader?.stop();
    await Promise.all(targets.map((t) => t.system.stop()));
  };
  try {
    const connection = await connectMongo(mongo.uri, `${dbPrefix}houses`);
    const seeded = await seedHouses(connection, { count }).finally(() => connection.close());
    const houseIds = Array.from({ length: seeded.lastId - seeded.firstId + 1 }, (_, i) => seeded.firstId + i);
    // The store's process, when this bench started it (its CPU is part of every request's cost).
    const storePid = listenerPid(mongo.uri);
    for (const variant of variants)
      for (const instances of instanceCounts) {
        const label = variant ? `x${instances} ${variant}` : `x${instances}`;
        const flags = [...nodeArgs, ...(variant ? variantArgs : [])];
        const system = await startHousesSystem(stores, {
          instances,
          env: {
            METRICS_TOKEN: metricsToken,
            ...(noCache ? { RESPONSE_CACHE_MAX_BYTES: '0' } : {}),
            ...(affinity ? { UPSTREAM_READ_AFFINITY: affinity } : {}),
          },
          nodeArgs: flags,
        });
        if (outputDir) {
          for (const handle of [system.gateway, ...(system.services.houses ?? [])]) {
            const file = createWriteStream(path.join(outputDir, `x${instances}${variant ? 'v' : ''}-${handle.name}-${handle.child.pid}.log`));
            // Each chunk stamped with the bench's clock (s), so a trace can be cut by round.
            const stamped = (chunk: Buffer) => void file.write(`@${process.uptime().toFixed(1)} ${chunk.toString()}`);
            handle.child.stdout?.on('data', stamped);
            handle.child.stderr?.on('data', stamped);
          }
        }
        const pids = (handles: Array<{ child: { pid?: number } }>) => handles.map((h) => h.child.pid).filter((p): p is number => p !== undefined);
        targets.push({
          instances,
          label,
          variant,
          system,
          pids: { houses: pids(system.services.houses ?? []), gateway: pids([system.gateway]), store: storePid !== undefined ? [storePid] : [] },
        });
      }
    loader = await Loader.start();
    const spec = { mix: MIX, fixture: { members: [], boardIds: [], houseIds }, stateKey: 'houses', seconds, ...(rate > 0 ? { rate } : { connections }) };
    // A spec with `connections` is a closed loop whatever its `rate`.
    const specOf = (target: Target) => (ratePerInstance > 0 ? { ...spec, connections: undefined, rate: ratePerInstance * target.instances } : spec);
    // `--warm-up-seconds N`: each system carries the load N s before the first round. V8 optimizes a process's hot
    // functions as they are called: a process given a third of the requests is still compiling minutes later, when
    // one given all of them has settled (docs/benchmarks.md, issue 37 item 5), so the rounds compare warm-ups.
    const warmUpSeconds = arg('warm-up-seconds', 0);
    if (warmUpSeconds > 0) {
      for (const target of targets) await loader.run({ ...specOf(target), url: target.system.url, seconds: warmUpSeconds });
    }
    console.log(
      `commit ${gitHead()}; ${seeded.inserted} listings; response cache ${noCache ? 'off' : 'on'}; read affinity ${affinity || "the gateway's default"}; ` +
        `${roundCount} rounds of ${seconds} s per system, ${ratePerInstance > 0 ? `${ratePerInstance} req/s per instance` : rate > 0 ? `${rate} req/s` : `${connections} connections`}; ` +
        `${os.cpus().length} cores, load average ${os
          .loadavg()
          .map((n) => n.toFixed(1))
          .join(' ')} at the start`,
    );
    const rounds = new Map<string, Round[]>();
    const idleOf = new Map<string, Idle>();
    for (let round = 0; round < roundCount; round++) {
      // 1, 2, 3 then 3, 2, 1: each system runs early and late alike.
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        // Warm-up: connections, the JIT and the response caches of every instance.
        await loader.run({ ...specOf(target), url: target.system.url, seconds: 3 });
        const others = targets.filter((t) => t !== target).map((t) => ({ target: t, before: ownCpu(t) }));
        const measured = await measure(loader, target, specOf(target), metricsToken);
        for (const { target: other, before } of others) {
          const after = ownCpu(other);
          const idle = idleOf.get(other.label) ?? { houses: 0, gateway: 0, seconds: 0 };
          idleOf.set(other.label, {
            houses: idle.houses + after.houses - before.houses,
            gateway: idle.gateway + after.gateway - before.gateway,
            seconds: idle.seconds + measured.load.seconds,
          });
        }
        rounds.set(target.label, [...(rounds.get(target.label) ?? []), measured]);
        if (outputDir) console.log(`@${process.uptime().toFixed(1)} end of round ${round + 1} houses ${target.label}`);
        console.log(
          `round ${round + 1} houses ${target.label}: ${measured.load.perSecond.toFixed(0)} req/s, p50 ${measured.load.all.p50} ms, p99 ${measured.load.all.p99} ms, ` +
            `CPU ms/req ${PARTS.map((part) => `${part} ${measured.perRequest[part].toFixed(3)}`).join(', ')}; ` +
            `${measured.houses.requests} reached houses, ${((measured.perRequest.houses * measured.load.count) / Math.max(1, measured.houses.requests)).toFixed(2)} ms of houses CPU each`,
        );
      }
    }
    report(targets, rounds, idleOf);
    for (const target of targets) {
      const counters = await instanceCounters(target, metricsToken);
      const requests = counters.reduce((sum, c) => sum + c.requests, 0);
      const computed = counters.reduce((sum, c) => sum + c.computed, 0);
      console.log(
        `houses ${target.label}: share of requests by instance ${counters.map((c) => `${((c.requests / Math.max(1, requests)) * 100).toFixed(0)} %`).join(' / ')}; ` +
          `answers computed ${counters.map((c) => c.computed).join(' + ')} = ${computed} of ${requests} requests (${((computed / Math.max(1, requests)) * 100).toFixed(1)} %)`,
      );
    }
    console.log(
      `load average ${os
        .loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} at the end`,
    );
  } finally {
    await stores.cleanUp();
  }
}

function gitHead(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
  } catch {
    return 'unknown';
  }
}

/** The pid listening on the store's port (`ss`), or undefined (a store given by MONGODB_URI on another host). */
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
