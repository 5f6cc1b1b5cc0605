/**
 * Local MongoDB launcher for dev scripts and tests. See docs/dev-mongo.md.
 *
 * Order of preference:
 *   1. process.env.MONGODB_URI, if set (nothing is started; stop() is a no-op);
 *   2. a `mongod` binary found on PATH;
 *   3. tools/dev-mongo (mongo-java-server 1.47 in a small JVM), built with Maven on demand.
 *
 * CommonJS-compatible (no top-level await); usable from tsx and from a jest globalSetup.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildToolJar, javaTool, launchJavaTool } from './java-tool';
import { freePort, track, waitForPort } from './server-process';

export interface RunningStore {
  uri: string;
  stop(): Promise<void>;
}

export interface StartMongoOptions {
  /** true: data survives restarts (dataDir/mongo); false: throw-away store. */
  persistent: boolean;
  /** Base directory for persistent data; the store lives in `${dataDir}/mongo`. */
  dataDir: string;
  /** Interface to bind, default 127.0.0.1. */
  host?: string;
  /** Port to bind, default 0 = pick a free port. */
  port?: number;
  /** Receives launcher messages and the server's stderr lines. */
  log?: (line: string) => void;
  /**
   * The local store's worker threads (`--workers`, docs/dev-mongo.md): 1 by default, every command in turn; more run
   * reads side by side (writes still alone), for more throughput when the store is the busiest part, at some CPU.
   */
  workers?: number;
}

const DEV_MONGO = javaTool('dev-mongo');

/**
 * JVM flags for a small, fast-starting process with short pauses. Extra flags: DEV_MONGO_JAVA_OPTS. The serial
 * collector (no GC threads competing with the services for the cores) with a fixed 48 MiB young generation in a
 * heap that starts at 128 MiB (issue 42): under the site's load the default 32 MiB heap had an 8 MiB young
 * generation collected about twice a second (4-10 ms each, `npm run bench:site` reads the store's GC log); six
 * times the room collects six times less often with about the same pause, since a collection's length is what
 * survives it, and the young answers of a request die within it; promoting fewer of them keeps the old
 * generation (whose full collections are the long pauses) from filling. Both of the JIT's tiers: a store lives for
 * a whole test run or system, and its scans (a list page's match and sort over every document) run about 2.8 times
 * faster in C2's code than in C1's alone (docs/dev-mongo.md), for about 20 ms more at start.
 */
const JVM_FLAGS = ['-XX:+UseSerialGC', '-Xss512k', '-Xms128m', '-Xmn48m', '-Xmx1g', '-XX:ReservedCodeCacheSize=64m', '-Dfile.encoding=UTF-8'];

const READY_TIMEOUT_MS = 60_000;

const noop = (): void => {};

// ---------------------------------------------------------------------------
// public API

export async function startMongo(opts: StartMongoOptions): Promise<RunningStore> {
  const log = opts.log ?? noop;
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 0;

  const envUri = process.env.MONGODB_URI;
  if (envUri && envUri.trim() !== '') {
    log(`[mongo] using MONGODB_URI from the environment`);
    return { uri: envUri, stop: async () => {} };
  }

  const mongod = findOnPath('mongod');
  if (mongod) {
    return startMongod(mongod, { ...opts, host, port, log });
  }

  return startDevMongo({ ...opts, host, port, log });
}

/**
 * Builds tools/dev-mongo/target/dev-mongo.jar if it is missing or older than the pom / Java
 * sources, and returns its path. Safe to call from several processes at once (mkdir lock).
 */
export function buildDevMongoJar(opts: { log?: (line: string) => void } = {}): Promise<string> {
  return buildToolJar(DEV_MONGO, opts);
}

// ---------------------------------------------------------------------------
// dev-mongo (mongo-java-server)

async function startDevMongo(opts: StartMongoOptions & { host: string; port: number; log: (line: string) => void }): Promise<RunningStore> {
  const { log, host, port } = opts;
  const args = ['--host', host, '--port', String(port), '--watch-stdin'];
  if (opts.workers !== undefined) args.push('--workers', String(opts.workers));
  if (opts.persistent) {
    const dir = path.resolve(opts.dataDir, 'mongo');
    await fs.promises.mkdir(dir, { recursive: true });
    args.push('--backend', 'h2', '--file', path.join(dir, 'dev.mv.db'));
  } else {
    args.push('--backend', 'memory');
  }

  log(`[mongo] starting dev-mongo (${opts.persistent ? 'h2, persistent' : 'memory'})`);
  const started = Date.now();
  const { child, proc, command } = await launchJavaTool(DEV_MONGO, {
    jvmFlags: [...JVM_FLAGS, ...splitOpts(process.env.DEV_MONGO_JAVA_OPTS)],
    args,
    label: 'mongo',
    log,
    stdin: 'pipe',
  });
  const stdout = child.stdout!;

  const uri = await new Promise<string>((resolve, reject) => {
    let done = false;
    let buf = '';
    const finish = (err: Error | null, value?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      if (err) reject(err);
      else resolve(value!);
    };
    const onData = (chunk: Buffer): void => {
      buf += chunk.toString('utf8');
      const m = /^READY (mongodb:\/\/\S+)\s*$/m.exec(buf);
      if (m) finish(null, m[1]);
    };
    const onExit = (code: number | null, signal: string | null): void => {
      finish(new Error(`dev-mongo exited before it was ready (code ${code}, signal ${signal}).\n` + `command: ${command}\nstderr:\n${proc.stderrTail()}`));
    };
    const onError = (err: Error): void => {
      finish(new Error(`dev-mongo: cannot run ${command}: ${err.message}`));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new Error(`dev-mongo did not print READY within ${READY_TIMEOUT_MS / 1000} s.\n` + `command: ${command}\nstderr:\n${proc.stderrTail()}`));
    }, READY_TIMEOUT_MS);
    stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
    // A spawn failure (no java) may have been reported before these listeners existed.
    if (proc.exited) finish(new Error(`dev-mongo: cannot run ${command}\nstderr:\n${proc.stderrTail()}`));
  });

  // Keep draining stdout so the pipe never fills up.
  stdout.on('data', noop);
  proc.unref();
  log(`[mongo] dev-mongo ready at ${uri} after ${Date.now() - started} ms`);
  return { uri, stop: () => proc.stop() };
}

// ---------------------------------------------------------------------------
// real mongod

async function startMongod(bin: string, opts: StartMongoOptions & { host: string; port: number; log: (line: string) => void }): Promise<RunningStore> {
  const { log, host } = opts;
  const port = opts.port || (await freePort(host));
  let dbPath: string;
  let tempDir: string | null = null;
  if (opts.persistent) {
    dbPath = path.resolve(opts.dataDir, 'mongo');
    await fs.promises.mkdir(dbPath, { recursive: true });
  } else {
    tempDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'binzip-mongod-'));
    dbPath = tempDir;
  }

  const args = ['--bind_ip', host, '--port', String(port), '--dbpath', dbPath, '--quiet'];
  log(`[mongo] starting ${bin} on ${host}:${port} (dbpath ${dbPath})`);
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  const proc = track(child, noop);
  child.stdout.on('data', (c: Buffer) => proc.addOutput(c));

  const cleanupTemp = async (): Promise<void> => {
    if (tempDir) await fs.promises.rm(tempDir, { recursive: true, force: true }).catch(noop);
  };

  try {
    await waitForPort(
      host,
      port,
      READY_TIMEOUT_MS,
      () => proc.exited,
      () => proc.stderrTail(),
    );
  } catch (err) {
    await proc.stop();
    await cleanupTemp();
    throw err;
  }
  proc.unref();
  const uri = `mongodb://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log(`[mongo] mongod ready at ${uri}`);
  return {
    uri,
    stop: async () => {
      await proc.stop();
      await cleanupTemp();
    },
  };
}

// ---------------------------------------------------------------------------
// helpers

function findOnPath(name: string): string | null {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

function splitOpts(s: string | undefined): string[] {
  return (s ?? '').split(/\s+/).filter(Boolean);
}
