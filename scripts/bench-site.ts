/**
 * The site as its users drive it: the issue's mix of requests through the real gateway and the five real
 * services, on data seeded through the API. Prints per request kind p50/p90/p99, throughput, errors and the CPU
 * milliseconds each process (gateway, each service, store, broker) spent per request, counting the work a run
 * leaves behind (events relayed and consumed after its last answer) until every process is quiet again; each run
 * starts once they are. Asserts nothing.
 *
 *   npm run bench:site -- [--listings 300,5000] [--seconds 10] [--rounds 2] [--connections 32]
 *                         [--rates 100,200] [--mixes site,read,houses,only:boardDetail] [--baseline <checkout>]
 *                         [--log-level info] [--node-args '--cpu-prof --cpu-prof-dir=/tmp/prof'] [--this-node-args '...']
 *                         [--env PASSWORD_CHECK_MEMORY_SECONDS=0,OTHER=value] [--spans] [--shared-store]
 *
 * `--baseline <checkout>` starts another checkout's build (run `npm install && npx tsc -b` there first) beside
 * this one, on the same broker, seeds it the same way and measures both in alternating rounds: each figure is the
 * median of its rounds and is also printed as a ratio to the baseline's. Each build runs on its own local store,
 * started by its own checkout's launcher (scripts/lib/mongo.ts: its jar, its JVM settings), since the store is
 * part of what a build gives every developer and test; `--shared-store` puts both on this build's store instead.
 * The load generator is its own process (scripts/lib/site-load.ts). Starts its stores and broker unless
 * MONGODB_URI / NATS_URL are set (then their CPU is not measured). `only:<kind>` is one request kind alone: its CPU per request at saturation, its latency alone at the steady rates. `--env` adds
 * settings to every process of both builds (e.g. `PASSWORD_CHECK_MEMORY_SECONDS=0`: a bcrypt on every sign-in).
 * `--this-node-args` adds Node flags to this build's processes only (`--baseline` a checkout of the same commit:
 * what a flag does). `--spans` traces this build's requests (OpenTelemetry, exported to a receiver in this process) and prints, after
 * each steady-rate run, where its slowest 3 % spent their time (scripts/lib/span-tail.ts); tracing costs every
 * request some CPU, so its latencies are not comparable with a run without it; with SPANS_DUMP=<path prefix> set,
 * every span and traced request of each steady rate is also written to `<prefix>-<rate>.json`.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { generateDevKeyPair } from '../shared/src';
import type { RunningStore, startMongo } from './lib/mongo';
import { startNatsServer } from './lib/nats';
import { KINDS, Loader, WRITE_KINDS, type Fixture, type Kind, type LoadResult, type LoadSpec, type Member } from './lib/site-load';
import { REPO_ROOT, SERVICES, startSystem, type RunningSystem } from './lib/system';
import { listingBody, PARAGRAPH } from './lib/bench-listing';
import { startOtlpReceiver, type OtlpReceiver } from './lib/otlp-receiver';
import { describeTail, type Window } from './lib/span-tail';

// ---------------------------------------------------------------------------------------------------------
// options

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const numbers = (text: string) => text.split(',').filter(Boolean).map(Number);

const LISTINGS = numbers(option('listings', '300,5000'));
const SECONDS = Number(option('seconds', '10'));
const ROUNDS = Number(option('rounds', '2'));
const CONNECTIONS = Number(option('connections', '32'));
const RATES = numbers(option('rates', '100,200'));
const MIXES = option('mixes', 'site,read,houses').split(',');
const BASELINE = process.argv.includes('--baseline') ? path.resolve(option('baseline', '')) : undefined;
const LOG_LEVEL = option('log-level', 'info');
const SPANS = process.argv.includes('--spans');
const SHARED_STORE = process.argv.includes('--shared-store');
/** Node flags of every measured process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them. */
const NODE_ARGS = ['--max-semi-space-size=16', ...option('node-args', '').split(' ').filter(Boolean)];
/** Node flags of this build's processes only: a flag tried against the same build as `--baseline`. */
const THIS_NODE_ARGS = option('this-node-args', '').split(' ').filter(Boolean);
/** Extra settings of every process, `KEY=value,KEY=value`. */
const EXTRA_ENV: Record<string, string> = Object.fromEntries(
  option('env', '')
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--env wants KEY=value pairs, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
);
const MEMBERS = 30;
const POSTS = 300;

/** Per 100 requests, as the issue measured the original site. */
const SITE_MIX: Record<Kind, number> = {
  boardList: 25,
  boardDetail: 15,
  houseList: 20,
  houseDetail: 15,
  preview: 5,
  signIn: 5,
  commentWrite: 5,
  loveToggle: 3,
  notificationList: 4,
  myPageList: 3,
};
const MIXES_BY_NAME = {
  site: SITE_MIX,
  /** The same reads, no writes. */
  read: Object.fromEntries(KINDS.filter((k) => !WRITE_KINDS.includes(k)).map((k) => [k, SITE_MIX[k]])),
  /** The house list alone. */
  houses: { houseList: 1 },
  /** Sign-in alone: sign-ins per second per core. */
  signIn: { signIn: 1 },
} satisfies Record<string, Partial<Record<Kind, number>>>;
type MixName = keyof typeof MIXES_BY_NAME;

function mixNamed(name: string): Partial<Record<Kind, number>> {
  if (name in MIXES_BY_NAME) return MIXES_BY_NAME[name as MixName];
  const kind = name.startsWith('only:') ? (name.slice(5) as Kind) : undefined;
  if (kind && KINDS.includes(kind)) return { [kind]: 1 };
  throw new Error(`unknown mix ${name}: one of ${Object.keys(MIXES_BY_NAME).join(', ')} or only:<${KINDS.join('|')}>`);
}

// ---------------------------------------------------------------------------------------------------------
// CPU of processes, from /proc (clock ticks of user + system time)

const TICK_MS = 1000 / 100;

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** Descendants of this process whose command is `name` (the store's JVM, the broker). */
function descendantsNamed(name: string): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const isMine = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, comm]) => comm === name && isMine(pid)).map(([pid]) => pid);
}

interface Target {
  label: string;
  system: RunningSystem;
  fixture: Fixture;
  outboxDir: string;
  store: Store;
}

/** A local store, its JVM's process ids (none when MONGODB_URI names one) and its GC log. */
interface Store extends RunningStore {
  pids: number[];
  gcLog?: string;
}

/** A store started by the launcher of the checkout at `root` (that build's jar and JVM settings). */
async function startStoreOf(root: string, dataDir: string, label: string): Promise<Store> {
  const launcher = (await import(path.join(root, 'scripts/lib/mongo.ts'))) as { startMongo: typeof startMongo };
  const gcLog = path.join(dataDir, `store-gc-${label}.log`);
  const before = new Set(descendantsNamed('java'));
  const opts = process.env.DEV_MONGO_JAVA_OPTS;
  // The store's own pauses: the JVM logs each collection with its length (read per run, `storePausesSince`).
  process.env.DEV_MONGO_JAVA_OPTS = [opts ?? '', `-Xlog:gc:file=${gcLog}`].join(' ').trim();
  try {
    const store = await launcher.startMongo({ persistent: false, dataDir: path.join(dataDir, `store-${label}`) });
    const pids = descendantsNamed('java').filter((pid) => !before.has(pid));
    return { ...store, pids, gcLog: pids.length > 0 ? gcLog : undefined };
  } finally {
    if (opts === undefined) delete process.env.DEV_MONGO_JAVA_OPTS;
    else process.env.DEV_MONGO_JAVA_OPTS = opts;
  }
}

function processesOf(target: Target, shared: Record<string, number[]>): Record<string, number[]> {
  const byName: Record<string, number[]> = { gateway: [target.system.gateway.child.pid ?? 0] };
  for (const service of SERVICES) byName[service] = (target.system.services[service] ?? []).map((h) => h.child.pid ?? 0);
  if (target.store.pids.length > 0) byName.store = target.store.pids;
  return { ...byName, ...shared };
}

// ---------------------------------------------------------------------------------------------------------
// seeding through the API

async function api<T = unknown>(base: string, method: string, pathname: string, options: { body?: unknown; token?: string } = {}): Promise<T> {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', ...(options.token ? { authorization: options.token } : {}) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const body = (await res.json()) as { code: string; message: string; data?: T };
  if (res.status !== 200 || body.code !== 'SUCCESS') throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(body)}`);
  return body.data as T;
}

async function inParallel<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

function codeSentTo(outboxDir: string, to: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(outboxDir, 'messages.jsonl'), 'utf8');
  } catch {
    return undefined;
  }
  const message = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string; text: string })
    .reverse()
    .find((m) => m.to === to);
  return message ? /\b(\d{4,8})\b/.exec(message.text)?.[1] : undefined;
}

/** Sign-up needs the phone (and a member's e-mail) checked within 30 minutes, as the site's client does. */
async function verified(base: string, outboxDir: string, channel: 'sms' | 'email', target: string): Promise<void> {
  const field = channel === 'sms' ? 'phone_num' : 'email';
  await api(base, 'POST', `/api/v1/users/send/${channel}`, { body: { [field]: target } });
  let code: string | undefined;
  for (let i = 0; i < 100 && !(code = codeSentTo(outboxDir, target)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!code) throw new Error(`no code sent to ${target}`);
  await api(base, 'POST', `/api/v1/users/check/${channel}`, { body: { [field]: target, code } });
}

const PASSWORD = 'Passw0rd!';
const memberBody = (i: number, phone: string) => ({
  userName: `bench_member${i}`,
  password: PASSWORD,
  nick_name: `벤치회원${i}`,
  phone_num: phone,
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
  email: `member${i}@bench.example`,
});

async function signIn(base: string, userName: string): Promise<string> {
  return (await api<{ access_token: string }>(base, 'POST', '/api/v1/users/sign-in', { body: { userName, password: PASSWORD } })).access_token;
}

const POST_KINDS = [
  { prefixCategory: 'DEFAULT', category: 'DAILY' },
  { prefixCategory: 'DEFAULT', category: 'QUESTION' },
  { prefixCategory: 'ADVERTISEMENT', category: 'INTERIOR' },
  { prefixCategory: 'INTRO', category: 'REVIEW' },
  { prefixCategory: 'INTRO', category: 'TREND' },
];

async function seedPeople(target: Target, phoneBase: number): Promise<{ agentToken: string }> {
  const base = target.system.url;
  const members = await inParallel(MEMBERS, 4, async (i): Promise<Member> => {
    const phone = `010${String(phoneBase + i).padStart(8, '0')}`;
    const body = memberBody(i, phone);
    await verified(base, target.outboxDir, 'sms', phone);
    await verified(base, target.outboxDir, 'email', body.email);
    await api(base, 'POST', '/api/v1/users/sign-up', { body });
    return { userName: `bench_member${i}`, password: PASSWORD, token: await signIn(base, `bench_member${i}`) };
  });
  const agentPhone = `010${String(phoneBase + MEMBERS).padStart(8, '0')}`;
  await verified(base, target.outboxDir, 'sms', agentPhone);
  // The contract's agent body has no `email`: `company_email` is the agent's.
  const { email: memberEmail, ...agentMember } = memberBody(MEMBERS, agentPhone);
  const agentBody = {
    userName: 'bench_agent',
    nick_name: '벤치중개사',
    agent_code: '1234567890',
    business_code: '12345678901234',
    company_name: '벤치 공인중개사',
    agent_name: '김대표',
    company_phone_num: '0212345678',
    assistant_name: null,
    company_address: '서울특별시 중구 세종대로 110',
    company_address_detail: '3층',
    company_email: 'office@bench.example',
    estate: '주택',
  };
  // Older builds (a --baseline) still asked the agent's own `email` as well.
  await api(base, 'POST', '/api/v1/agents/sign-up', { body: { ...agentMember, ...agentBody } }).catch(() =>
    api(base, 'POST', '/api/v1/agents/sign-up', { body: { ...agentMember, email: memberEmail, ...agentBody } }),
  );
  target.fixture.members = members;
  const agentToken = await signIn(base, 'bench_agent');
  const boardIds = await inParallel(POSTS, 6, (i) =>
    api<number>(base, 'POST', '/api/v1/boards', {
      token: members[i % members.length].token,
      body: {
        title: `시골 생활 이야기 ${i}`,
        code: PARAGRAPH.repeat(2),
        imageUrls: [`https://img.example.com/post-${i}.jpg`],
        fixed: false,
        ...POST_KINDS[i % POST_KINDS.length],
      },
    }),
  );
  target.fixture.boardIds = boardIds;
  // Comments by other members: the posts' authors get notifications to list.
  await inParallel(POSTS, 6, (i) =>
    api(base, 'POST', '/api/v1/comments', { token: members[(i + 7) % members.length].token, body: { boardId: boardIds[i], content: '잘 읽었습니다.' } }),
  );
  return { agentToken };
}

async function seedListings(target: Target, agentToken: string, upTo: number): Promise<void> {
  const from = target.fixture.houseIds.length;
  const ids = await inParallel(upTo - from, 6, (i) =>
    api<number>(target.system.url, 'POST', '/api/v1/houses', { token: agentToken, body: listingBody(from + i) }),
  );
  target.fixture.houseIds.push(...ids);
}

/** Fresh tokens before a scenario: access tokens last 30 minutes. */
async function refreshTokens(target: Target): Promise<void> {
  await inParallel(target.fixture.members.length, 2, async (i) => {
    const member = target.fixture.members[i];
    member.token = await signIn(target.system.url, member.userName);
  });
}

// ---------------------------------------------------------------------------------------------------------
// measuring and printing

interface Measured {
  load: LoadResult;
  /** CPU milliseconds per request, by process name, and their sum. */
  cpuPerRequest: Record<string, number>;
  /** Share of one core the processes used together, in per cent. */
  cpuPercent: number;
  /** Accounts' password checks during the run, by how they were answered (builds that count them). */
  passwordChecks?: PasswordChecks;
  /** Each Node process's event-loop delay and GC pauses during the run, by process name (the worst instance). */
  pauses: Record<string, Pauses>;
  /** How long after the run its work went on (events relayed and consumed): counted in `cpuPerRequest`. */
  drainMs: number;
}

/**
 * Waits, at most `maxMs`, until these processes together use under a quarter of a core over a second: the work
 * a run left behind (events still relayed and consumed after a burst of writes) is done. Gives how long it waited.
 * Without it, what one run's writes left behind was measured in the next run (the sign-in run after the
 * comment-write run showed notifications at 0.73 ms a sign-in).
 */
async function untilQuiet(pids: readonly number[], maxMs = 60_000): Promise<number> {
  const began = Date.now();
  const total = () => pids.reduce((sum, pid) => sum + (cpuMs(pid) || 0), 0);
  for (;;) {
    const before = total();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (total() - before < 250 || Date.now() - began >= maxMs) return Date.now() - began;
  }
}

/** Milliseconds, from a process's /metrics over one measured run (`NaN`: the build does not say). */
interface Pauses {
  loopP99: number;
  loopMax: number;
  gcP99: number;
  gcMax: number;
  /** Response-cache counters (cumulative when scraped, the run's own in `Measured`; NaN: the build has none). */
  cacheMemory: number;
  cacheComputed: number;
  /** Changes that forgot every answer, by source (`binzip_response_cache_changes_total{what="everything"}`). */
  forgotEverything: Record<string, number>;
}

type PasswordChecks = Record<'memory' | 'bcrypt', number>;

/** The bearer the services' /metrics answer in the bench's systems (nobody without one). */
const BENCH_METRICS_TOKEN = 'bench-site-metrics-token';

/** Accounts' `binzip_password_checks_total` so far, or undefined for a build without it. */
async function passwordChecksOf(target: Target): Promise<PasswordChecks | undefined> {
  const accounts = target.system.services.accounts?.[0];
  if (!accounts) return undefined;
  const text = await fetch(`${accounts.url}/metrics`, { headers: { Authorization: `Bearer ${BENCH_METRICS_TOKEN}` } })
    .then((res) => (res.ok ? res.text() : ''))
    .catch(() => '');
  const read = (by: string) => new RegExp(`^binzip_password_checks_total\\{answered_by="${by}"\\} (\\S+)$`, 'm').exec(text)?.[1];
  if (!text.includes('binzip_password_checks_total')) return undefined;
  return { memory: Number(read('memory') ?? 0), bcrypt: Number(read('bcrypt') ?? 0) };
}

/** The Node processes' /metrics, by process name: the gateway and each service instance. */
function metricsUrlsOf(target: Target): Record<string, string[]> {
  const urls: Record<string, string[]> = { gateway: [target.system.url] };
  for (const service of SERVICES) urls[service] = (target.system.services[service] ?? []).map((h) => h.url);
  return urls;
}

async function scrapeMetrics(url: string): Promise<string> {
  return fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${BENCH_METRICS_TOKEN}` } })
    .then((res) => (res.ok ? res.text() : ''))
    .catch(() => '');
}

/**
 * A process's pauses since its previous scrape: `binzip_event_loop_delay_seconds` and `binzip_gc_pause_seconds`
 * (this build's), else prom-client's event-loop p99 and maximum, which include its 10 ms sampling interval (older
 * builds, the interval taken off here).
 */
function pausesIn(text: string): Pauses {
  const read = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? NaN : Number(line.slice(series.length + 1)) * 1000;
  };
  const own = read('binzip_event_loop_delay_seconds{quantile="0.99"}');
  const computed = read('binzip_response_cache_answers_total{answered_by="computed"}');
  const forgotEverything: Record<string, number> = {};
  for (const m of text.matchAll(/^binzip_response_cache_changes_total\{source="([^"]+)",what="everything"\} (\S+)$/gm)) forgotEverything[m[1]] = Number(m[2]);
  return {
    cacheMemory: read('binzip_response_cache_answers_total{answered_by="memory"}') / 1000,
    // A service's answers it computed; the gateway's, the services answered (`GatewayAnswers`).
    cacheComputed: (Number.isFinite(computed) ? computed : read('binzip_response_cache_answers_total{answered_by="service"}')) / 1000,
    forgotEverything,
    loopP99: Number.isFinite(own) ? own : Math.max(0, read('nodejs_eventloop_lag_p99_seconds') - 10),
    loopMax: Number.isFinite(own) ? read('binzip_event_loop_delay_seconds{quantile="1"}') : Math.max(0, read('nodejs_eventloop_lag_max_seconds') - 10),
    gcP99: read('binzip_gc_pause_seconds{quantile="0.99"}'),
    gcMax: read('binzip_gc_pause_seconds{quantile="1"}'),
  };
}

function storeGcLogLength(storeGcLog: string | undefined): number {
  try {
    return storeGcLog ? statSync(storeGcLog).size : 0;
  } catch {
    return 0;
  }
}

/** The store JVM's pauses logged since `offset` (lines `... Pause Young (Allocation Failure) 20M->5M(64M) 3.456ms`). */
function storePausesSince(storeGcLog: string | undefined, offset: number): Pauses | undefined {
  if (!storeGcLog) return undefined;
  let text: string;
  try {
    text = readFileSync(storeGcLog).subarray(offset).toString('utf8');
  } catch {
    return undefined;
  }
  const pauses = [...text.matchAll(/Pause .* ([\d.]+)ms$/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
  const at = (q: number) => (pauses.length === 0 ? 0 : pauses[Math.min(pauses.length - 1, Math.ceil(q * pauses.length) - 1)]);
  return { loopP99: NaN, loopMax: NaN, gcP99: at(0.99), gcMax: at(1), cacheMemory: NaN, cacheComputed: NaN, forgotEverything: {} };
}

/** Starts a new window in every Node process (a scrape ends the previous one), or reads the one that ends now. */
async function pausesOf(target: Target): Promise<Record<string, Pauses>> {
  const byName: Record<string, Pauses> = {};
  for (const [name, urls] of Object.entries(metricsUrlsOf(target))) {
    const each = await Promise.all(urls.map(async (url) => pausesIn(await scrapeMetrics(url))));
    const worst = (get: (p: Pauses) => number) => Math.max(...each.map(get).filter(Number.isFinite));
    const sum = (get: (p: Pauses) => number) => each.reduce((total, p) => total + (Number.isFinite(get(p)) ? get(p) : 0), 0);
    const forgotEverything: Record<string, number> = {};
    for (const p of each) for (const [source, n] of Object.entries(p.forgotEverything)) forgotEverything[source] = (forgotEverything[source] ?? 0) + n;
    if (each.length > 0)
      byName[name] = {
        loopP99: worst((p) => p.loopP99),
        loopMax: worst((p) => p.loopMax),
        gcP99: worst((p) => p.gcP99),
        gcMax: worst((p) => p.gcMax),
        cacheMemory: sum((p) => p.cacheMemory),
        cacheComputed: sum((p) => p.cacheComputed),
        forgotEverything,
      };
  }
  return byName;
}

async function measure(
  loader: Loader,
  target: Target,
  shared: Record<string, number[]>,
  spec: Omit<LoadSpec, 'url' | 'fixture' | 'stateKey'>,
  everyone: readonly number[],
): Promise<Measured> {
  const processes = processesOf(target, shared);
  const sample = () => Object.fromEntries(Object.entries(processes).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuMs(pid), 0)]));
  const checksBefore = await passwordChecksOf(target);
  const pausesBefore = await pausesOf(target);
  const storeLogAt = storeGcLogLength(target.store.gcLog);
  const before = sample();
  const load = await loader.run({ ...spec, url: target.system.url, fixture: target.fixture, stateKey: target.label });
  const afterRun = sample();
  // The run's own work that goes on after its last answer (the relays, the consumers) is the run's cost too.
  const drainMs = await untilQuiet(everyone);
  const after = sample();
  const pauses = await pausesOf(target);
  for (const [name, p] of Object.entries(pauses)) {
    const was = pausesBefore[name];
    if (!was) continue;
    p.cacheMemory -= was.cacheMemory;
    p.cacheComputed -= was.cacheComputed;
    for (const source of Object.keys(p.forgotEverything)) p.forgotEverything[source] -= was.forgotEverything[source] ?? 0;
  }
  const storePauses = storePausesSince(target.store.gcLog, storeLogAt);
  if (storePauses) pauses.store = storePauses;
  const checksAfter = await passwordChecksOf(target);
  const passwordChecks =
    checksBefore && checksAfter ? { memory: checksAfter.memory - checksBefore.memory, bcrypt: checksAfter.bcrypt - checksBefore.bcrypt } : undefined;
  const cpuPerRequest: Record<string, number> = {};
  let total = 0;
  for (const name of Object.keys(processes)) {
    const spent = after[name] - before[name];
    total += spent;
    cpuPerRequest[name] = spent / Math.max(1, load.count);
  }
  cpuPerRequest.total = total / Math.max(1, load.count);
  const duringRun = Object.keys(processes).reduce((sum, name) => sum + (afterRun[name] - before[name]), 0);
  return { load, cpuPerRequest, cpuPercent: (duringRun / (load.seconds * 1000)) * 100, passwordChecks, pauses, drainMs };
}

const median = (values: number[]): number => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const ratio = (ours: number, theirs: number) => (Number.isFinite(ours) && Number.isFinite(theirs) && theirs !== 0 ? ` (${(ours / theirs).toFixed(2)}x)` : '');

function report(title: string, runs: Record<string, Measured[]>, labels: string[]): void {
  const [ours, theirs] = labels;
  const mid = (label: string, get: (m: Measured) => number | undefined) => median((runs[label] ?? []).map((m) => get(m) ?? NaN));
  console.log(`\n### ${title}`);
  for (const label of labels) {
    const errors = (runs[label] ?? []).reduce((sum, m) => sum + m.load.errors, 0);
    const failures: Record<string, number> = {};
    for (const m of runs[label] ?? []) for (const [code, n] of Object.entries(m.load.all.failures)) failures[code] = (failures[code] ?? 0) + n;
    console.log(
      `${label.padEnd(9)} ${fmt(
        mid(label, (m) => m.load.perSecond),
        0,
      ).padStart(6)} req/s` +
        (label === ours && theirs
          ? ratio(
              mid(ours, (m) => m.load.perSecond),
              mid(theirs, (m) => m.load.perSecond),
            )
          : '') +
        `  p50/p90/p99 ${fmt(mid(label, (m) => m.load.all.p50))}/${fmt(mid(label, (m) => m.load.all.p90))}/${fmt(mid(label, (m) => m.load.all.p99))} ms` +
        `  CPU ${fmt(
          mid(label, (m) => m.cpuPercent),
          0,
        )} % of a core  errors ${errors}${errors ? ` ${JSON.stringify(failures)}` : ''}`,
    );
  }
  console.log(`| kind | n | p50 ms | p90 ms | p99 ms |`);
  console.log(`|---|---|---|---|---|`);
  for (const kind of KINDS) {
    if (!runs[ours]?.some((m) => m.load.kinds[kind])) continue;
    const cell = (get: (m: Measured) => number | undefined) => {
      const value = mid(ours, get);
      return `${fmt(value)}${theirs ? ratio(value, mid(theirs, get)) : ''}`;
    };
    const n = (runs[ours] ?? []).reduce((sum, m) => sum + (m.load.kinds[kind]?.count ?? 0), 0);
    const errors = (runs[ours] ?? []).reduce((sum, m) => sum + (m.load.kinds[kind]?.errors ?? 0), 0);
    console.log(
      `| ${kind} | ${n}${errors ? ` (${errors} errors)` : ''} | ${cell((m) => m.load.kinds[kind]?.p50)} | ${cell((m) => m.load.kinds[kind]?.p90)} | ${cell((m) => m.load.kinds[kind]?.p99)} |`,
    );
  }
  const names = Object.keys(runs[ours]?.[0]?.cpuPerRequest ?? {});
  console.log(
    `CPU ms per request: ` +
      names
        .map(
          (name) =>
            `${name} ${fmt(
              mid(ours, (m) => m.cpuPerRequest[name]),
              2,
            )}${
              theirs
                ? ratio(
                    mid(ours, (m) => m.cpuPerRequest[name]),
                    mid(theirs, (m) => m.cpuPerRequest[name]),
                  )
                : ''
            }`,
        )
        .join(', ') +
      ` (including the work after the run: ${labels.map((label) => `${label} ${fmt(mid(label, (m) => m.drainMs / 1000))} s`).join(', ')})`,
  );
  const pausedNames = Object.keys(runs[ours]?.[0]?.pauses ?? {});
  const pauseLine = (label: string, what: string, get: (p: Pauses) => number) =>
    `${what} (${label}): ` + pausedNames.map((name) => `${name} ${fmt(mid(label, (m) => (m.pauses[name] ? get(m.pauses[name]) : NaN)))}`).join(', ');
  for (const label of labels) {
    const cached = pausedNames.filter((name) => (runs[label] ?? []).some((m) => (m.pauses[name]?.cacheMemory ?? 0) + (m.pauses[name]?.cacheComputed ?? 0) > 0));
    if (cached.length > 0)
      console.log(
        `response cache (${label}), answers from memory / computed, and changes that forgot everything by source: ` +
          cached
            .map((name) => {
              const all = runs[label] ?? [];
              const total = (get: (p: Pauses) => number) => all.reduce((sum, m) => sum + (m.pauses[name] ? get(m.pauses[name]) : 0), 0);
              const sources: Record<string, number> = {};
              for (const m of all)
                for (const [source, n] of Object.entries(m.pauses[name]?.forgotEverything ?? {})) sources[source] = (sources[source] ?? 0) + n;
              const forgot = Object.entries(sources).filter(([, n]) => n > 0);
              return `${name} ${total((p) => p.cacheMemory)}/${total((p) => p.cacheComputed)}${forgot.length ? ` (${forgot.map(([source, n]) => `${source} ${n}`).join(', ')})` : ''}`;
            })
            .join(', '),
      );
    console.log(
      pauseLine(label, 'event-loop delay p99/max ms', (p) => p.loopP99) +
        '  |  max ' +
        pausedNames.map((name) => `${name} ${fmt(mid(label, (m) => (m.pauses[name] ? m.pauses[name].loopMax : NaN)))}`).join(', '),
    );
    if ((runs[label] ?? []).some((m) => Object.values(m.pauses).some((p) => Number.isFinite(p.gcP99))))
      console.log(
        pauseLine(label, 'GC pause p99 ms', (p) => p.gcP99) +
          '  |  max ' +
          pausedNames
            .map(
              (name) =>
                `${name} ${fmt(
                  mid(label, (m) => (m.pauses[name] ? m.pauses[name].gcMax : NaN)),
                  2,
                )}`,
            )
            .join(', '),
      );
  }
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  MIXES.forEach(mixNamed);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-site-'));
  const thisStore = await startStoreOf(REPO_ROOT, dataDir, 'this');
  const nats = process.env.NATS_URL
    ? { uri: process.env.NATS_URL, stop: async () => undefined }
    : await startNatsServer({ storeDir: path.join(dataDir, 'nats') });
  const shared: Record<string, number[]> = {};
  const broker = descendantsNamed('nats-server');
  if (broker.length > 0) shared.broker = broker;
  const keys = generateDevKeyPair();
  const builds: Array<{ label: string; root: string; store: Store }> = [{ label: 'this', root: REPO_ROOT, store: thisStore }];
  if (BASELINE) builds.push({ label: 'baseline', root: BASELINE, store: SHARED_STORE ? thisStore : await startStoreOf(BASELINE, dataDir, 'baseline') });
  const loader = await Loader.start();
  const receiver: OtlpReceiver | undefined = SPANS ? await startOtlpReceiver() : undefined;
  // Exported within a fraction of a second of each request, so a run's traces are in before its report.
  const tracing = receiver && { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
  const targets: Target[] = [];
  console.log(
    `bench:site ${new Date().toISOString()}  ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, Node ${process.version}`,
  );
  console.log(
    `listings ${LISTINGS.join(', ')}; ${SECONDS} s per run, ${ROUNDS} rounds per build, ${CONNECTIONS} connections at saturation, rates ${RATES.join(', ')} req/s` +
      (BASELINE ? `; ${SHARED_STORE ? "both builds on this build's store" : 'each build on its own store'}` : ''),
  );
  try {
    for (const [i, build] of builds.entries()) {
      const outboxDir = path.join(dataDir, `outbox-${build.label}`);
      const system = await startSystem({
        root: build.root,
        nodeArgs: build.label === 'this' ? [...NODE_ARGS, ...THIS_NODE_ARGS] : NODE_ARGS,
        mongoUri: build.store.uri,
        natsUrl: nats.uri,
        publicKey: keys.publicKey,
        privateKey: keys.privateKey,
        dbPrefix: `site${i}${Date.now().toString(36)}_`,
        natsPrefix: `site${i}${Date.now().toString(36)}`,
        env: {
          LOG_LEVEL,
          DEV_OUTBOX_DIR: outboxDir,
          // The load comes from one address: the gateway's per-address flood ceilings would refuse it.
          RATE_LIMIT_SIGN_IN_MAX: '1000000000',
          RATE_LIMIT_SEND_CODE_MAX: '1000000000',
          // Accounts' per-address ceilings likewise: the seeding signs up every member (and verifies each contact) from here.
          CEILING_SIGN_UPS_PER_ADDRESS: '0',
          CEILING_CODE_SENDS_PER_ADDRESS: '0',
          // The per-member write ceiling too: 30 members write the whole mix.
          CEILING_MEMBER_WRITES: '0',
          // Accounts' /metrics (its password checks) answers only this bearer.
          METRICS_TOKEN: BENCH_METRICS_TOKEN,
          ...EXTRA_ENV,
          ...(build.label === 'this' ? tracing : {}),
        },
      });
      targets.push({ label: build.label, system, outboxDir, store: build.store, fixture: { members: [], boardIds: [], houseIds: [] } });
    }
    // Every measured process of both builds, their stores and the broker they share.
    const everyone = [...new Set([...targets.flatMap((t) => Object.values(processesOf(t, {})).flat()), ...Object.values(shared).flat()])];
    const agentTokens = await Promise.all(targets.map((t, i) => seedPeople(t, 20_000_000 + i * 1000)));
    console.log(`seeded ${MEMBERS} members, an agent, ${POSTS} posts and ${POSTS} comments per build`);
    for (const listings of LISTINGS) {
      await Promise.all(targets.map((t, i) => seedListings(t, agentTokens[i].agentToken, listings)));
      console.log(`\n## ${listings} listings (seeded through the API)`);
      const scenarios: Array<{ title: string; mix: string; connections?: number; rate?: number }> = [];
      for (const mix of MIXES) {
        scenarios.push({ title: `${mix} mix, saturation (${CONNECTIONS} connections), ${listings} listings`, mix, connections: CONNECTIONS });
        if (mix === 'site' || mix === 'read' || mix.startsWith('only:'))
          for (const rate of RATES) scenarios.push({ title: `${mix} mix, steady ${rate} req/s, ${listings} listings`, mix, rate });
      }
      if (listings === LISTINGS[0])
        scenarios.push({ title: `sign-in alone, saturation (${CONNECTIONS} connections)`, mix: 'signIn', connections: CONNECTIONS });
      for (const scenario of scenarios) {
        for (const target of targets) await refreshTokens(target);
        const runs: Record<string, Measured[]> = {};
        const traced: Window[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          // Alternating, and starting with the other build every second round, so a neighbour's load falls on both.
          const order = round % 2 === 0 ? targets : [...targets].reverse();
          for (const target of order) {
            const spec = { mix: mixNamed(scenario.mix), seconds: SECONDS, connections: scenario.connections, rate: scenario.rate };
            // Nothing left over from the run before (either build's) runs during this one.
            await untilQuiet(everyone);
            // A short unrecorded warm-up: JIT, connection pools, caches.
            await loader.run({ ...spec, seconds: Math.min(3, SECONDS), url: target.system.url, fixture: target.fixture, stateKey: target.label });
            const fromUs = Date.now() * 1000;
            (runs[target.label] ??= []).push(await measure(loader, target, shared, spec, everyone));
            if (target.label === 'this' && scenario.rate) traced.push({ fromUs, toUs: Date.now() * 1000 });
          }
        }
        report(
          scenario.title,
          runs,
          targets.map((t) => t.label),
        );
        if (receiver && traced.length > 0) {
          await delay(500);
          for (const line of describeTail(receiver.spans, traced)) console.log(`spans (this): ${line}`);
          // The raw spans, for a look beyond the summary: only when asked (a run writes tens of megabytes).
          if (process.env.SPANS_DUMP) writeFileSync(`${process.env.SPANS_DUMP}-${scenario.rate}.json`, JSON.stringify({ spans: receiver.spans, traced }));
        }
        if (scenario.mix === 'signIn') {
          const perSecond = median((runs.this ?? []).map((m) => m.load.perSecond));
          console.log(`sign-ins per second per core: ${fmt(perSecond / os.availableParallelism())} (${os.availableParallelism()} cores, bcrypt cost 10)`);
        }
        for (const [label, measured] of Object.entries(runs)) {
          const checks = measured.map((m) => m.passwordChecks).filter((c): c is PasswordChecks => c !== undefined);
          const memory = checks.reduce((sum, c) => sum + c.memory, 0);
          const bcrypt = checks.reduce((sum, c) => sum + c.bcrypt, 0);
          if (memory + bcrypt > 0) console.log(`password checks (${label}): ${bcrypt} by bcrypt, ${memory} from the memory of verified passwords`);
        }
      }
    }
    console.log(
      `\nload average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    loader.stop();
    await receiver?.close();
    for (const target of targets) await target.system.stop();
    await nats.stop();
    for (const store of new Set(builds.map((b) => b.store))) await store.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
