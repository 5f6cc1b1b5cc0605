/**
 * The load generator of `npm run bench:site` and `npm run bench:system`, run as its own process (`Loader` forks
 * it) so its CPU is not the measured processes'. It times every request itself, from the moment the request was due (open loop) or sent (closed
 * loop) to the last byte of the answer, and pairs each answer with its own request (autocannon does not when a
 * server closes connections). The parent sends `{ type: 'run', id, spec }` and gets `{ type: 'result', id, result }`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** The request kinds of the site mix. */
export const KINDS = [
  'boardList',
  'boardDetail',
  'houseList',
  'houseDetail',
  'preview',
  'signIn',
  'commentWrite',
  'loveToggle',
  'notificationList',
  'myPageList',
] as const;
export type Kind = (typeof KINDS)[number];
export const WRITE_KINDS: readonly Kind[] = ['signIn', 'commentWrite', 'loveToggle'];

export interface Member {
  userName: string;
  password: string;
  token: string;
}

/** What the seeding left behind, for picking request targets. */
export interface Fixture {
  members: Member[];
  boardIds: number[];
  houseIds: number[];
}

export interface LoadSpec {
  url: string;
  /** Weight of each kind (per 100 requests in the mix); kinds left out are not sent. */
  mix: Partial<Record<Kind, number>>;
  fixture: Fixture;
  /** Loves are toggled, so the generator remembers which it set, per system under test. */
  stateKey: string;
  seconds: number;
  /** Closed loop: this many connections, each sending its next request when the last answer ended. */
  connections?: number;
  /** Open loop: requests due at this steady rate whatever the answers do. */
  rate?: number;
}

export interface KindFigures {
  count: number;
  errors: number;
  /** Answers by status (`ERR` for a failed connection), errors only. */
  failures: Record<string, number>;
  p50: number;
  p90: number;
  p99: number;
}

export interface LoadResult {
  seconds: number;
  count: number;
  errors: number;
  perSecond: number;
  all: KindFigures;
  kinds: Partial<Record<Kind, KindFigures>>;
}

interface Planned {
  kind: Kind;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  token?: string;
  body?: unknown;
  member?: Member;
  /** Called with the answer's status (love state bookkeeping). */
  settle?: (ok: boolean) => void;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
const BOARD_LISTS = [
  'prefix=DEFAULT',
  'prefix=DEFAULT&category=DAILY',
  'prefix=ADVERTISEMENT',
  'prefix=INTRO',
  'prefix=INTRO&category=REVIEW',
  'prefix=DEFAULT&order=RECENT',
];
const HOUSE_FILTERS = [
  '',
  `city=${encodeURIComponent('수도권')}`,
  `city=${encodeURIComponent('전라')}&rentalType=JEONSE`,
  'rentalType=SALE',
  'recommendedTag=WANT_TO_FARM',
  'dealState=ONGOING',
  `city=${encodeURIComponent('강원')}&dealState=ONGOING`,
];
const PREVIEWS = ['prefix=COMMUNITY&limit=5', `prefix=INTRO&limit=4&category=TREND`, 'prefix=DEFAULT&limit=6'];
const MY_PAGES = ['/api/v1/boards/my?page=0', '/api/v1/boards/my/comment?page=0', '/api/v1/boards/my/love?page=0', '/api/v1/houses/scrap?page=0'];

const lovedBy = new Map<string, Set<string>>();
const lovesInFlight = new Set<string>();

function plan(kind: Kind, spec: LoadSpec): Planned {
  const { members, boardIds, houseIds } = spec.fixture;
  const member = pick(members);
  switch (kind) {
    case 'boardList':
      return { kind, method: 'GET', path: `/api/v1/boards?${pick(BOARD_LISTS)}&page=${Math.floor(Math.random() * 3)}` };
    case 'boardDetail':
      return { kind, method: 'GET', path: `/api/v1/boards/${pick(boardIds)}` };
    case 'houseList': {
      const filter = pick(HOUSE_FILTERS);
      return { kind, method: 'GET', path: `/api/v1/houses?${filter}${filter ? '&' : ''}page=${Math.floor(Math.random() * 3)}&size=8` };
    }
    case 'houseDetail':
      return { kind, method: 'GET', path: `/api/v1/houses/${pick(houseIds)}` };
    case 'preview':
      return { kind, method: 'GET', path: `/api/v1/boards/preview?${pick(PREVIEWS)}` };
    case 'signIn':
      return { kind, method: 'POST', path: '/api/v1/users/sign-in', body: { userName: member.userName, password: member.password }, member };
    case 'commentWrite':
      return {
        kind,
        method: 'POST',
        path: '/api/v1/comments',
        token: member.token,
        body: { boardId: pick(boardIds), content: '좋은 정보 감사합니다. 저도 가 보고 싶네요.' },
      };
    case 'loveToggle': {
      const loved = lovedBy.get(spec.stateKey) ?? new Set<string>();
      lovedBy.set(spec.stateKey, loved);
      let boardId = pick(boardIds);
      let key = `${member.userName}:${boardId}`;
      for (let tries = 0; lovesInFlight.has(`${spec.stateKey}:${key}`) && tries < 20; tries++) {
        boardId = pick(boardIds);
        key = `${member.userName}:${boardId}`;
      }
      const flightKey = `${spec.stateKey}:${key}`;
      lovesInFlight.add(flightKey);
      const on = !loved.has(key);
      return {
        kind,
        method: on ? 'PUT' : 'DELETE',
        path: `/api/v1/loves/${boardId}`,
        token: member.token,
        settle: (ok) => {
          lovesInFlight.delete(flightKey);
          if (ok && on) loved.add(key);
          if (ok && !on) loved.delete(key);
        },
      };
    }
    case 'notificationList':
      return { kind, method: 'GET', path: '/api/v1/notifications?read=', token: member.token };
    case 'myPageList':
      return { kind, method: 'GET', path: pick(MY_PAGES), token: member.token };
  }
}

/** A kind drawn with the mix's weights. */
function drawer(mix: LoadSpec['mix']): () => Kind {
  const entries = KINDS.filter((k) => (mix[k] ?? 0) > 0).map((k) => [k, mix[k] ?? 0] as const);
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  return () => {
    let r = Math.random() * total;
    for (const [kind, weight] of entries) {
      r -= weight;
      if (r < 0) return kind;
    }
    return entries[entries.length - 1][0];
  };
}

interface Sample {
  kind: Kind;
  ms: number;
  failure?: string;
}

function send(agent: http.Agent, base: URL, planned: Planned, startedAt: number): Promise<Sample> {
  return new Promise((resolve) => {
    const payload = planned.body === undefined ? undefined : Buffer.from(JSON.stringify(planned.body));
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (planned.token) headers.authorization = planned.token;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    const done = (failure: string | undefined) => {
      planned.settle?.(failure === undefined);
      resolve({ kind: planned.kind, ms: performance.now() - startedAt, failure });
    };
    const req = http.request({ agent, host: base.hostname, port: base.port, method: planned.method, path: planned.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300 && planned.kind === 'signIn' && planned.member) {
          // The fresh token replaces the member's, so a long run never sends an expired one.
          const token = (JSON.parse(Buffer.concat(chunks).toString()) as { data?: { access_token?: string } }).data?.access_token;
          if (token) planned.member.token = token;
        }
        done(status >= 200 && status < 300 ? undefined : String(status));
      });
      res.on('error', () => done('ERR'));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => done('ERR'));
    req.end(payload);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function figures(samples: Sample[]): KindFigures {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const failures: Record<string, number> = {};
  for (const s of samples) if (s.failure) failures[s.failure] = (failures[s.failure] ?? 0) + 1;
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    count: samples.length,
    errors: samples.filter((s) => s.failure).length,
    failures,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const base = new URL(spec.url);
  const draw = drawer(spec.mix);
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections ?? 512 });
  const samples: Sample[] = [];
  const started = performance.now();
  const endAt = started + spec.seconds * 1000;
  if (spec.connections) {
    await Promise.all(
      Array.from({ length: spec.connections }, async () => {
        while (performance.now() < endAt) samples.push(await send(agent, base, plan(draw(), spec), performance.now()));
      }),
    );
  } else {
    const rate = spec.rate ?? 100;
    const total = Math.round(rate * spec.seconds);
    const pending: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // Timed from when it was due: a generator that fell behind does not hide the wait (coordinated omission). One
      // sent up to a millisecond early (not worth a timer) is timed from its sending: never a negative latency.
      pending.push(send(agent, base, plan(draw(), spec), Math.min(due, performance.now())).then((s) => void samples.push(s)));
    }
    await Promise.all(pending);
  }
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const kinds: Partial<Record<Kind, KindFigures>> = {};
  for (const kind of KINDS) {
    const own = samples.filter((s) => s.kind === kind);
    if (own.length > 0) kinds[kind] = figures(own);
  }
  const all = figures(samples);
  return { seconds, count: all.count, errors: all.errors, perSecond: all.count / seconds, all, kinds };
}

/** The parent's side: the generator forked as its own process, one run at a time or several in turn. */
export class Loader {
  private nextId = 0;
  private readonly waiting = new Map<number, (result: LoadResult) => void>();
  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { type: string; id?: number; result?: LoadResult }) => {
      if (message.type === 'result' && message.id !== undefined && message.result) {
        this.waiting.get(message.id)?.(message.result);
        this.waiting.delete(message.id);
      }
    });
  }

  static async start(): Promise<Loader> {
    const child = fork(__filename, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`load generator exited (${code})`)));
    });
    return new Loader(child);
  }

  /** The generator's process id (its CPU is not the measured processes'). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  run(spec: LoadSpec): Promise<LoadResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send({ type: 'run', id, spec });
    });
  }

  stop(): void {
    this.child.send({ type: 'exit' });
  }
}

if (require.main === module && process.send) {
  process.on('message', (message: { type: 'run'; id: number; spec: LoadSpec } | { type: 'exit' }) => {
    if (message.type === 'exit') process.exit(0);
    void runLoad(message.spec).then((result) => process.send?.({ type: 'result', id: message.id, result }));
  });
  process.send({ type: 'ready' });
}
