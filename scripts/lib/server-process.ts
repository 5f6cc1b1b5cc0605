/**
 * A server the dev scripts and tests start as a child process (dev-mongo, mongod, S3Proxy): its output's tail
 * for errors, a graceful stop, and an end with the parent; a free port and a wait until the port accepts.
 */
import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';

const STOP_GRACE_MS = 5_000;
const STDERR_TAIL_LINES = 60;

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

/** Whether something accepts TCP connections on `host:port` now. */
export function portOpen(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A port nothing listens on right now (the OS picks it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
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
    const ok = await portOpen(host, port);
    if (ok) return;
    if (Date.now() > deadline) {
      throw new Error(`the server did not accept connections on ${host}:${port} within ${timeoutMs / 1000} s.\noutput:\n${stderrTail()}`);
    }
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
