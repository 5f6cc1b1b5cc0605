import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES, SERVICE_PORTS, type ServiceName } from '../../services/gateway/src/proxy/upstreams';
import type { ListeningMessage } from '../../shared/src/core/lifecycle';
import { freePort, portOpen } from './server-process';

/**
 * Starts the built services as real child processes (`node services/<name>/dist/main.js`) and the gateway
 * in front of them. Used by `npm start` and by the end-to-end tests.
 */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** The services, as the gateway lists them (`SERVICE_PORTS`, services/gateway/src/proxy/upstreams.ts: the one list). */
export const SERVICES: readonly ServiceName[] = SERVICE_NAMES;
export type { ServiceName };

export const DEFAULT_PORTS: Record<ServiceName | 'gateway', number> = { gateway: 8080, ...SERVICE_PORTS };

export interface ProcessHandle {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
  /** Last lines the process wrote (for failure messages). */
  output: string[];
  stop(): Promise<void>;
  /** Starts the same process again on the same port. */
  restart(): Promise<void>;
  /** How often the launcher started the process again after it exited by itself. */
  restarts: number;
}

/**
 * Waits before starting a process again after it exited by itself, by consecutive exit: a process that keeps
 * failing (its store still away) is not started in a tight loop. The count resets once a run lasted
 * RESTART_RESET_AFTER_MS.
 */
export const DEFAULT_RESTART_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000];
const RESTART_RESET_AFTER_MS = 60_000;

export interface StartProcessOptions {
  name: string;
  /** Service folder name under services/. */
  service: ServiceName | 'gateway';
  port: number;
  env: NodeJS.ProcessEnv;
  /** Print the child's output with a name prefix (npm start) instead of keeping it quiet. */
  inheritOutput?: boolean;
  readyTimeoutMs?: number;
  /** Delays before restarting a process that exited by itself (default DEFAULT_RESTART_BACKOFF_MS); [] turns it off. */
  restartBackoffMs?: number[];
  /** Where the launcher says what it does (a restart); default stdout when inheritOutput, else only `output`. */
  log?: (line: string) => void;
  /** The checkout whose build to run (default this one; bench:site's `--baseline` runs another). */
  root?: string;
  /** Node flags before the entry (`--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

export function serviceEntry(service: ServiceName | 'gateway', root: string = REPO_ROOT): string {
  const entry = path.join(root, 'services', service, 'dist', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  return entry;
}

/** A process that could not bind the port it was given (someone else took it after `freePort` chose it). */
export class PortTakenError extends Error {}

/**
 * Waits until the process says it listens (`tellLauncherListening`, over its IPC channel) and then answers
 * `/health`: without the first, a server another test started on the same port could answer for it.
 */
async function waitHealthy(handle: ProcessHandle, timeoutMs: number, listens: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (handle.child.exitCode !== null) {
      const output = handle.output.join('');
      const why = `${handle.name} exited (${handle.child.exitCode}):\n${output}`;
      // Its own words say so only when it logs (tests run silent); someone answering on its port says so always.
      const taken = output.includes('EADDRINUSE') || (!listens() && (await portOpen('127.0.0.1', handle.port)));
      throw taken ? new PortTakenError(why) : new Error(why);
    }
    if (listens()) {
      try {
        const res = await fetch(`${handle.url}/health`, { signal: AbortSignal.timeout(1_000) });
        if (res.ok) return;
      } catch {
        // not answering yet
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${handle.name} did not become healthy within ${timeoutMs} ms:\n${handle.output.join('')}`);
}

export async function startProcess(options: StartProcessOptions): Promise<ProcessHandle> {
  const entry = serviceEntry(options.service, options.root);
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
  };
  const backoff = options.restartBackoffMs ?? DEFAULT_RESTART_BACKOFF_MS;
  const say = (line: string) => {
    keep(Buffer.from(`[launcher] ${line}\n`));
    if (options.log) options.log(line);
    else if (options.inheritOutput) console.log(`[start] ${line}`);
  };
  // Stopped on purpose (stop, restart, a failed start): an exit then is not a crash to recover from.
  let stopping = false;
  // Only a process that once became healthy is restarted; a failed first start is reported to the caller.
  let supervised = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let consecutiveExits = 0;
  let launchedAt = 0;
  // Another checkout's build (bench:site's baseline) may predate `tellLauncherListening`: its /health is trusted.
  const confirmsListening = (options.root ?? REPO_ROOT) === REPO_ROOT;
  let listeningChild: ChildProcess | undefined;
  const listens = () => !confirmsListening || (listeningChild !== undefined && listeningChild === handle.child);
  const handle: ProcessHandle = {
    name: options.name,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    output,
    restarts: 0,
    child: undefined as unknown as ChildProcess,
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      const child = handle.child;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // A process drains before it closes (SHUTDOWN_DRAIN_MS); only one stalled beyond that is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), Number(options.env.SHUTDOWN_DRAIN_MS ?? 0) + 8_000);
      await exited;
      clearTimeout(timer);
    },
    restart: async () => {
      await handle.stop();
      stopping = false;
      launch();
      await waitHealthy(handle, options.readyTimeoutMs ?? 30_000, listens);
    },
  };
  const launch = () => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], {
      cwd: options.root ?? REPO_ROOT,
      env: { ...process.env, ...options.env, PORT: String(options.port), HOST: '127.0.0.1' },
      stdio: confirmsListening ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    });
    child.on('message', (message: Partial<ListeningMessage>) => {
      if (message.listening?.pid === child.pid) listeningChild = child;
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (options.inheritOutput) process.stdout.write(prefixLines(options.name, chunk));
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (options.inheritOutput) process.stderr.write(prefixLines(options.name, chunk));
    });
    child.once('exit', (code, signal) => {
      if (stopping || !supervised || backoff.length === 0) return;
      if (Date.now() - launchedAt >= RESTART_RESET_AFTER_MS) consecutiveExits = 0;
      const delayMs = backoff[Math.min(consecutiveExits, backoff.length - 1)];
      consecutiveExits++;
      // Why it left by itself: its last line that is not an access log line (a kill has none to give).
      const why = signal
        ? ''
        : output
            .join('')
            .split('\n')
            .filter((line) => line.trim() !== '' && !line.includes('"method"'))
            .slice(-1)[0]
            ?.slice(0, 400);
      say(
        `${options.name} exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms (restart ${handle.restarts + 1})${why ? `; its last words: ${why}` : ''}`,
      );
      restartTimer = setTimeout(() => {
        if (stopping) return;
        handle.restarts++;
        launch();
        say(`${options.name} restarted (pid ${handle.child.pid})`);
      }, delayMs);
      restartTimer.unref();
    });
    launchedAt = Date.now();
    handle.child = child;
  };
  launch();
  try {
    await waitHealthy(handle, options.readyTimeoutMs ?? 30_000, listens);
    supervised = true;
  } catch (err) {
    // A process that never became healthy must not outlive the failed start.
    await handle.stop();
    throw err;
  }
  return handle;
}

function prefixLines(name: string, chunk: Buffer): string {
  return chunk
    .toString()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => `[${name}] ${line}\n`)
    .join('');
}

export interface SystemOptions {
  mongoUri: string;
  natsUrl: string;
  publicKey: string;
  privateKey: string;
  /** Which services to start (default: all). */
  services?: readonly ServiceName[];
  /** How many instances of each service (default 1). */
  instances?: Partial<Record<ServiceName, number>>;
  /** How many gateways, each in front of every instance (default 1; issue 37's scaled-out test runs two). */
  gateways?: number;
  /**
   * Gateway i forwards only to instance i (modulo each service's count) instead of to all of them: a test then
   * knows which replica a request reached by the gateway it sent it through (issue 37's shared-state proofs).
   */
  splitUpstreams?: boolean;
  /** Fixed ports (npm start); free ports are picked when absent (tests). */
  ports?: Partial<Record<ServiceName | 'gateway', number>>;
  /** Suffix for database names and the NATS prefix (tests). */
  dbPrefix?: string;
  natsPrefix?: string;
  /** Extra environment for every process. */
  env?: NodeJS.ProcessEnv;
  inheritOutput?: boolean;
  /** Restart delays for a process that exits by itself (see StartProcessOptions). */
  restartBackoffMs?: number[];
  /** Where the launcher reports restarts. */
  log?: (line: string) => void;
  /** The checkout whose build to run (default this one). */
  root?: string;
  /** Node flags of every process (see StartProcessOptions). */
  nodeArgs?: string[];
  /** How long each process may take to answer /health (default 30 s; many processes on a busy machine take longer). */
  readyTimeoutMs?: number;
}

export interface RunningSystem {
  /** The first gateway (on `ports.gateway` when fixed). */
  gateway: ProcessHandle;
  /** Every gateway, the first one first. */
  gateways: ProcessHandle[];
  services: Partial<Record<ServiceName, ProcessHandle[]>>;
  /** Gateway base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  stop(): Promise<void>;
}

/** How often a system on free ports is started again when a port it was given was taken before it bound it. */
const PORT_TAKEN_ATTEMPTS = 3;

export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSystemOnce(options);
    } catch (err) {
      // Fixed ports (npm start) taken stay an error for the person who started it; free ones are chosen again.
      if (!(err instanceof PortTakenError) || options.ports !== undefined || attempt >= PORT_TAKEN_ATTEMPTS) throw err;
      options.log?.(`a port was taken before its process bound it; starting the system again on other ports (${err.message.split('\n')[0]})`);
    }
  }
}

async function startSystemOnce(options: SystemOptions): Promise<RunningSystem> {
  const services = options.services ?? SERVICES;
  const started: ProcessHandle[] = [];
  const byService: Partial<Record<ServiceName, ProcessHandle[]>> = {};
  const gatewayPort = options.ports?.gateway ?? (await freePort());
  const common: NodeJS.ProcessEnv = {
    // The address clients reach the site at (the upload answers name pictures under it).
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${gatewayPort}`,
    // glibc's allocator as the Dockerfile sets it (memory freed by libvips goes back to the system).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ ?? '131072',
    MONGODB_URI: options.mongoUri,
    NATS_URL: options.natsUrl,
    NATS_PREFIX: options.natsPrefix ?? '',
    JWT_PUBLIC_KEY: options.publicKey,
    // No load balancer to drain from here (the launcher stops its processes with SIGTERM); tests that show the
    // drain set it.
    SHUTDOWN_DRAIN_MS: '0',
    // The revocation feed's shared secret (accounts answers its bearer), new for every system started here.
    REVOCATION_FEED_TOKEN: randomBytes(24).toString('base64url'),
    ...options.env,
  };
  try {
    // Accounts first: the others read its revocation feed (ACCOUNTS_URLS).
    for (const service of [...services.filter((s) => s === 'accounts'), ...services.filter((s) => s !== 'accounts')]) {
      const count = options.instances?.[service] ?? 1;
      for (let i = 0; i < count; i++) {
        const fixed = options.ports?.[service];
        const port = fixed !== undefined ? fixed + i * 10 : await freePort();
        const env: NodeJS.ProcessEnv = {
          ...common,
          MONGODB_DB: `${options.dbPrefix ?? ''}${service}`,
          ...(service === 'accounts' ? { JWT_PRIVATE_KEY: options.privateKey } : {}),
          ...(byService.accounts && common.ACCOUNTS_URLS === undefined ? { ACCOUNTS_URLS: byService.accounts.map((h) => h.url).join(',') } : {}),
        };
        const handle = await startProcess({
          name: count > 1 ? `${service}-${i + 1}` : service,
          service,
          port,
          env,
          inheritOutput: options.inheritOutput,
          restartBackoffMs: options.restartBackoffMs,
          log: options.log,
          root: options.root,
          nodeArgs: options.nodeArgs,
          readyTimeoutMs: options.readyTimeoutMs,
        });
        started.push(handle);
        (byService[service] ??= []).push(handle);
      }
    }
    const upstreams: NodeJS.ProcessEnv = {};
    for (const service of SERVICES) {
      const handles = byService[service];
      // A service not started still gets an address, so its routes answer 503 rather than 404.
      upstreams[`${service.toUpperCase()}_URLS`] = handles ? handles.map((h) => h.url).join(',') : `http://127.0.0.1:${DEFAULT_PORTS[service]}`;
    }
    const gateways: ProcessHandle[] = [];
    const gatewayCount = Math.max(1, options.gateways ?? 1);
    for (let i = 0; i < gatewayCount; i++) {
      const own: NodeJS.ProcessEnv = { ...upstreams };
      if (options.splitUpstreams) {
        for (const service of SERVICES) {
          const handles = byService[service];
          if (handles) own[`${service.toUpperCase()}_URLS`] = handles[i % handles.length].url;
        }
      }
      const port = i === 0 ? gatewayPort : options.ports?.gateway !== undefined ? options.ports.gateway + i : await freePort();
      const gateway = await startProcess({
        name: gatewayCount > 1 ? `gateway-${i + 1}` : 'gateway',
        service: 'gateway',
        port,
        env: { ...common, ...own },
        inheritOutput: options.inheritOutput,
        restartBackoffMs: options.restartBackoffMs,
        log: options.log,
        root: options.root,
        nodeArgs: options.nodeArgs,
        readyTimeoutMs: options.readyTimeoutMs,
      });
      started.push(gateway);
      gateways.push(gateway);
    }
    const gateway = gateways[0];
    return {
      gateway,
      gateways,
      services: byService,
      url: gateway.url,
      stop: async () => {
        await Promise.all(started.map((h) => h.stop()));
      },
    };
  } catch (err) {
    await Promise.all(started.map((h) => h.stop()));
    throw err;
  }
}

/** Dev keys: generated once into the data folder when none are configured. */
export function loadOrCreateDevKeys(dataDir: string, generate: () => { publicKey: string; privateKey: string }): { publicKey: string; privateKey: string } {
  if (process.env.JWT_PUBLIC_KEY && process.env.JWT_PRIVATE_KEY) return { publicKey: process.env.JWT_PUBLIC_KEY, privateKey: process.env.JWT_PRIVATE_KEY };
  const dir = path.join(dataDir, 'keys');
  const pub = path.join(dir, 'jwt-public.pem');
  const priv = path.join(dir, 'jwt-private.pem');
  if (!existsSync(pub) || !existsSync(priv)) {
    mkdirSync(dir, { recursive: true });
    const keys = generate();
    writeFileSync(pub, keys.publicKey);
    writeFileSync(priv, keys.privateKey, { mode: 0o600 });
  }
  return { publicKey: readFileSync(pub, 'utf8'), privateKey: readFileSync(priv, 'utf8') };
}

/** The dev data folder of `npm start` (`DATA_DIR`, default `.data` in the checkout). */
export function devDataDir(): string {
  return path.resolve(process.env.DATA_DIR ?? path.join(REPO_ROOT, '.data'));
}

/**
 * The event streams must live and die with the data folder: a NATS server that outlives a wiped data folder
 * (the machine's own, or one shared by several checkouts) would replay old users onto reused ids. Each data
 * folder gets its own subject/stream prefix, made once and kept beside the data. `NATS_PREFIX` overrides it.
 */
export function devNatsPrefix(dataDir: string, options: { create: boolean }): string {
  if (process.env.NATS_PREFIX !== undefined) return process.env.NATS_PREFIX;
  const file = path.join(dataDir, 'nats-prefix');
  if (!existsSync(file)) {
    if (!options.create) return '';
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `dev${randomBytes(4).toString('hex')}\n`);
  }
  return readFileSync(file, 'utf8').trim();
}
