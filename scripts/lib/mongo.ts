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
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

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
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');
/**
 * A Java tool under tools/<name>/, built by Maven into tools/<name>/target/<name>.jar: dev-mongo here, and
 * S3Proxy (scripts/lib/s3proxy.ts) the same way.
 */
export interface JavaTool {
  name: string;
  dir: string;
  pom: string;
  src: string;
  target: string;
  jar: string;
  buildLock: string;
}

export function javaTool(name: string): JavaTool {
  const dir = path.join(REPO_ROOT, 'tools', name);
  const target = path.join(dir, 'target');
  return {
    name,
    dir,
    pom: path.join(dir, 'pom.xml'),
    src: path.join(dir, 'src'),
    target,
    jar: path.join(target, `${name}.jar`),
    buildLock: path.join(target, '.build-lock'),
  };
}

const DEV_MONGO = javaTool('dev-mongo');

/** JVM flags for a small, fast-starting process. Extra flags: DEV_MONGO_JAVA_OPTS. */
const JVM_FLAGS = ['-XX:+UseSerialGC', '-Xss512k', '-XX:TieredStopAtLevel=1', '-Xms32m', '-Xmx1g', '-XX:ReservedCodeCacheSize=64m', '-Dfile.encoding=UTF-8'];

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const BUILD_LOCK_TIMEOUT_MS = 10 * 60_000;
const STDERR_TAIL_LINES = 60;

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

/**
 * Builds a tool's jar if it is missing or older than its pom / sources, and returns its path. Safe to call from
 * several processes at once (mkdir lock).
 */
export async function buildToolJar(tool: JavaTool, opts: { log?: (line: string) => void } = {}): Promise<string> {
  const log = opts.log ?? noop;
  if (isJarFresh(tool)) return tool.jar;

  await fs.promises.mkdir(tool.target, { recursive: true });
  const release = await acquireLock(tool.buildLock, log);
  try {
    // Someone else may have built it while we were waiting for the lock.
    if (isJarFresh(tool)) return tool.jar;
    log(`[${tool.name}] building ${path.relative(REPO_ROOT, tool.jar)} with Maven ...`);
    const started = Date.now();
    const baseArgs = ['-q', '-B', '-f', tool.pom, '-DskipTests', 'package'];
    // Offline first (fast, works without network when ~/.m2 is populated), then online.
    let res = await run('mvn', ['-o', ...baseArgs], tool.dir);
    if (res.code !== 0) {
      log(`[${tool.name}] offline Maven build failed, retrying online`);
      res = await run('mvn', baseArgs, tool.dir);
    }
    if (res.code !== 0 || !fs.existsSync(tool.jar)) {
      throw new Error(`${tool.name}: Maven build failed (exit ${res.code}). Command: mvn ${baseArgs.join(' ')}\n` + tail(res.output, 80));
    }
    // Make sure the jar counts as fresh even if the build was a no-op for the packaging plugin.
    const now = new Date();
    await fs.promises.utimes(tool.jar, now, now);
    log(`[${tool.name}] built ${path.basename(tool.jar)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return tool.jar;
  } finally {
    await release();
  }
}

// ---------------------------------------------------------------------------
// dev-mongo (mongo-java-server)

async function startDevMongo(opts: StartMongoOptions & { host: string; port: number; log: (line: string) => void }): Promise<RunningStore> {
  const { log, host, port } = opts;
  const jar = await buildDevMongoJar({ log });

  const args = [...JVM_FLAGS, ...splitOpts(process.env.DEV_MONGO_JAVA_OPTS), '-jar', jar];
  args.push('--host', host, '--port', String(port), '--watch-stdin');
  if (opts.persistent) {
    const dir = path.resolve(opts.dataDir, 'mongo');
    await fs.promises.mkdir(dir, { recursive: true });
    args.push('--backend', 'h2', '--file', path.join(dir, 'dev.mv.db'));
  } else {
    args.push('--backend', 'memory');
  }

  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  log(`[mongo] starting dev-mongo (${opts.persistent ? 'h2, persistent' : 'memory'})`);
  const started = Date.now();
  const child = spawn(java, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: false });
  const proc = track(child, log);

  const uri = await new Promise<string>((resolve, reject) => {
    let done = false;
    let buf = '';
    const finish = (err: Error | null, value?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout.off('data', onData);
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
      finish(
        new Error(
          `dev-mongo exited before it was ready (code ${code}, signal ${signal}).\n` + `command: ${java} ${args.join(' ')}\nstderr:\n${proc.stderrTail()}`,
        ),
      );
    };
    const onError = (err: Error): void => {
      finish(new Error(`dev-mongo: cannot run ${java}: ${err.message}`));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(
        new Error(`dev-mongo did not print READY within ${READY_TIMEOUT_MS / 1000} s.\n` + `command: ${java} ${args.join(' ')}\nstderr:\n${proc.stderrTail()}`),
      );
    }, READY_TIMEOUT_MS);
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });

  // Keep draining stdout so the pipe never fills up.
  child.stdout.on('data', noop);
  proc.unref();
  log(`[mongo] dev-mongo ready at ${uri} after ${Date.now() - started} ms`);
  return { uri, stop: () => proc.stop() };
}

// ---------------------------------------------------------------------------
// real mongod

async function startMongod(bin: string, opts: StartMongoOptions & { host: string; port: number; log: (line: string) => void }): Promise<RunningStore> {
  const { log, host } = opts;
  const port = opts.port || (await pickFreePort(host));
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
// process tracking

export interface Tracked {
  readonly exited: boolean;
  stop(): Promise<void>;
  unref(): void;
  stderrTail(): string;
  addOutput(chunk: Buffer): void;
}

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when the parent exits without calling stop(): SIGTERM lets the child shut down
  // cleanly (h2 flush). dev-mongo also exits on stdin EOF, which covers a SIGKILLed parent.
  process.on('exit', () => {
    for (const c of liveChildren) {
      try {
        c.kill('SIGTERM');
      } catch {
        /* ignore */
      }
    }
  });
}

/** Keeps a server child process: its output's tail for errors, a graceful stop, ended with the parent. */
export function track(child: ChildProcess, log: (line: string) => void, label = 'mongo'): Tracked {
  installExitHook();
  liveChildren.add(child);
  const lines: string[] = [];
  let partial = '';
  let exited = false;
  let ready = false;
  let stopping = false;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      liveChildren.delete(child);
      if (ready && !stopping) log(`[${label}] server process exited unexpectedly (code ${code}, signal ${signal})`);
      resolve();
    });
    child.once('error', () => {
      // spawn failure: 'exit' may never fire
      exited = true;
      liveChildren.delete(child);
      resolve();
    });
  });
  let stopPromise: Promise<void> | null = null;

  const addOutput = (chunk: Buffer): void => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split(/\r?\n/);
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line === '') continue;
      lines.push(line);
      if (lines.length > STDERR_TAIL_LINES) lines.shift();
      log(`[${label}] ${line}`);
    }
  };
  child.stderr?.on('data', addOutput);

  return {
    get exited() {
      return exited;
    },
    addOutput,
    stderrTail: () => [...lines, partial].filter(Boolean).join('\n') || '(empty)',
    unref: () => {
      ready = true;
      // Do not keep the parent's event loop alive just because the server runs.
      child.unref();
      for (const s of [child.stdin, child.stdout, child.stderr]) {
        (s as unknown as { unref?: () => void } | null)?.unref?.();
      }
    },
    stop: () => {
      if (stopPromise) return stopPromise;
      stopping = true;
      stopPromise = (async () => {
        if (exited) return;
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const killed = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            if (!exited) child.kill('SIGKILL');
            resolve();
          }, STOP_GRACE_MS);
        });
        await Promise.race([exitPromise, killed]);
        clearTimeout(timer);
        await exitPromise;
        child.stdin?.destroy();
      })();
      return stopPromise;
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

function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) {
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

function isJarFresh(tool: JavaTool): boolean {
  let jarTime: number;
  try {
    jarTime = fs.statSync(tool.jar).mtimeMs;
  } catch {
    return false;
  }
  return jarTime >= Math.max(newestMtime(tool.pom), newestMtime(tool.src));
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** mkdir-based inter-process lock; a lock whose owner pid is gone is taken over. */
async function acquireLock(dir: string, log: (line: string) => void): Promise<() => Promise<void>> {
  const ownerFile = path.join(dir, 'owner');
  const deadline = Date.now() + BUILD_LOCK_TIMEOUT_MS;
  let announced = false;
  for (;;) {
    try {
      await fs.promises.mkdir(dir);
      await fs.promises.writeFile(ownerFile, `${process.pid}\n${os.hostname()}\n`);
      return async () => {
        await fs.promises.rm(dir, { recursive: true, force: true }).catch(noop);
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    // Held by someone else: is the holder still alive?
    let stale = false;
    try {
      const [pidText, hostText] = (await fs.promises.readFile(ownerFile, 'utf8')).split('\n');
      const pid = Number(pidText);
      stale = hostText === os.hostname() && Number.isInteger(pid) && pid > 0 && !pidAlive(pid);
    } catch {
      // owner file not written yet (or lock just released): stale only if old
      try {
        stale = Date.now() - (await fs.promises.stat(dir)).mtimeMs > 30_000;
      } catch {
        stale = false; // released meanwhile; retry immediately
      }
    }
    if (stale) {
      log(`[build] removing stale build lock ${dir}`);
      await fs.promises.rm(dir, { recursive: true, force: true }).catch(noop);
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for build lock ${dir} (remove it if no build is running)`);
    }
    if (!announced) {
      log(`[build] another process is building ${path.basename(path.dirname(path.dirname(dir)))}, waiting ...`);
      announced = true;
    }
    await sleep(250);
  }
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    let child: ChildProcess;
    try {
      child = spawn(cmd, args, {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, MAVEN_OPTS: process.env.MAVEN_OPTS ?? '-XX:+UseSerialGC -XX:TieredStopAtLevel=1' },
      });
    } catch (e) {
      resolve({ code: -1, output: String(e) });
      return;
    }
    const add = (c: Buffer): void => {
      output += c.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    child.once('error', (e) => resolve({ code: -1, output: `${output}\n${cmd}: ${e.message}` }));
    child.once('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

export function pickFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

export async function waitForPort(host: string, port: number, timeoutMs: number, hasExited: () => boolean, stderrTail: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited()) {
      throw new Error(`the server exited before accepting connections on ${host}:${port}.\noutput:\n${stderrTail()}`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ host, port });
      const done = (v: boolean): void => {
        sock.destroy();
        resolve(v);
      };
      sock.once('connect', () => done(true));
      sock.once('error', () => done(false));
      sock.setTimeout(1000, () => done(false));
    });
    if (ok) return;
    if (Date.now() > deadline) {
      throw new Error(`the server did not accept connections on ${host}:${port} within ${timeoutMs / 1000} s.\noutput:\n${stderrTail()}`);
    }
    await sleep(100);
  }
}

function splitOpts(s: string | undefined): string[] {
  return (s ?? '').split(/\s+/).filter(Boolean);
}

function tail(text: string, n: number): string {
  return text.split(/\r?\n/).slice(-n).join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
