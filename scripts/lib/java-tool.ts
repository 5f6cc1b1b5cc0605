/**
 * A Java tool under tools/<name>/ (dev-mongo, S3Proxy): built by Maven into tools/<name>/target/<name>.jar on
 * demand, then launched in a JVM as a tracked child process. Building is safe from several processes at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sleep, track, type Tracked } from './server-process';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const BUILD_LOCK_TIMEOUT_MS = 10 * 60_000;

const noop = (): void => {};

/** Where a tool's sources, pom and jar are. */
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

/**
 * Builds a tool's jar if it is missing or older than its pom / sources, and returns its path. Safe to call from
 * several processes at once (mkdir lock).
 */
export async function buildToolJar(tool: JavaTool, opts: { log?: (line: string) => void } = {}): Promise<string> {
  const log = opts.log ?? noop;
  if (jarIsFresh(tool)) return tool.jar;

  await fs.promises.mkdir(tool.target, { recursive: true });
  const release = await acquireLock(tool.buildLock, log);
  try {
    // Someone else may have built it while we were waiting for the lock.
    if (jarIsFresh(tool)) return tool.jar;
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
      // One line for the person starting the system; Maven's own output goes to a file beside the jar.
      const logFile = path.join(tool.target, 'maven-build.log');
      await fs.promises.writeFile(logFile, `mvn ${baseArgs.join(' ')}\n${tail(res.output, 400)}\n`);
      const hint = res.code === -1 ? 'is Maven installed? `apt-get install -y maven`' : 'offline? the first build downloads from Maven Central';
      throw new Error(`${tool.name}: the Maven build failed (exit ${res.code}; ${hint}); Maven's output: ${path.relative(process.cwd(), logFile)}`);
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

export interface JavaLaunch {
  /** JVM flags (heap, GC) before `-jar`. */
  jvmFlags: readonly string[];
  /** The tool's own arguments after the jar. */
  args: readonly string[];
  /** Prefix of the tool's output lines in `log`. */
  label: string;
  log: (line: string) => void;
  /** 'pipe' for a tool that exits when its stdin closes (dev-mongo's --watch-stdin), so a killed parent ends it. */
  stdin?: 'pipe' | 'ignore';
}

export interface LaunchedJavaTool {
  child: ChildProcess;
  proc: Tracked;
  /** The command line, for error messages. */
  command: string;
}

/** Builds the jar when needed and starts `java <flags> -jar <jar> <args>` (JAVA_HOME honoured); stderr is tracked. */
export async function launchJavaTool(tool: JavaTool, launch: JavaLaunch): Promise<LaunchedJavaTool> {
  const jar = await buildToolJar(tool, { log: launch.log });
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  const args = [...launch.jvmFlags, '-jar', jar, ...launch.args];
  const child = spawn(java, args, { stdio: [launch.stdin ?? 'ignore', 'pipe', 'pipe'], detached: false });
  return { child, proc: track(child, launch.log, launch.label), command: `${java} ${args.join(' ')}` };
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

/** The tool's jar is there and newer than its pom and sources (no Maven needed). */
export function jarIsFresh(tool: JavaTool): boolean {
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
    let stale: boolean;
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

function tail(text: string, n: number): string {
  return text.split(/\r?\n/).slice(-n).join('\n');
}
