import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMongo } from '../../scripts/lib/mongo';
import { startNatsServer } from '../../scripts/lib/nats';
import { freePort } from '../../scripts/lib/server-process';
import { isolatedNames, testEnv } from '../../test/support';

/**
 * The process-level promises of runService, checked on a real child process: an error nobody handled, or the
 * store gone for longer than OUTAGE_EXIT_MS, ends the process in order with a non-zero exit code; the broker gone
 * for any length does not; SIGTERM drains before closing.
 */
// Each test starts real processes (a tsx child, and a JVM store once or twice): on a loaded 2-core machine that
// alone can take tens of seconds, so the per-test deadline is generous. Nothing here measures speed.
jest.setTimeout(120_000);

const FIXTURE = path.join(__dirname, 'fixtures', 'lifecycle-service.ts');

type LogLine = Record<string, unknown> & { message?: string };

interface Child {
  process: ChildProcess;
  url: string;
  lines: LogLine[];
  exited: Promise<number | null>;
  /** Resolves with the first log line matching `match` (already written or still to come). */
  line(match: (line: LogLine) => boolean): Promise<LogLine>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function startChild(env: NodeJS.ProcessEnv): Promise<Child> {
  const port = await freePort();
  const names = isolatedNames('lifecycle');
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: path.join(__dirname, '..', '..'),
    env: { ...process.env, MONGODB_DB: names.db, NATS_PREFIX: names.natsPrefix, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const lines: LogLine[] = [];
  const waiters: Array<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const text of parts) {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(text) as LogLine;
      } catch {
        parsed = { message: text };
      }
      lines.push(parsed);
      for (const waiter of [...waiters]) {
        if (waiter.match(parsed)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(parsed);
        }
      }
    }
  });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = (match: (line: LogLine) => boolean) =>
    new Promise<LogLine>((resolve, reject) => {
      const found = lines.find(match);
      if (found) return resolve(found);
      waiters.push({ match, resolve });
      void exited.then(() => {
        // Output still buffered in the pipe arrives before 'close'; give it that turn, then give up.
        child.once('close', () => {
          const late = lines.find(match);
          if (late) resolve(late);
          else reject(new Error(`child exited without the expected line; stdout:\n${JSON.stringify(lines)}\nstderr:\n${stderr.join('')}`));
        });
      });
    });
  return { process: child, url: `http://127.0.0.1:${port}`, lines, exited, line };
}

const listening = (l: LogLine) => l.message === 'listening';

describe('errors nobody handled', () => {
  test.each([
    ['unhandledRejection', '/reject'],
    ['uncaughtException', '/throw'],
  ])('%s is logged with the request id and ends the process in order, non-zero', async (kind, route) => {
    const child = await startChild({});
    await child.line(listening);
    const requestId = `lifecycle-${kind}`;
    await fetch(`${child.url}${route}`, { method: 'POST', headers: { 'x-request-id': requestId } }).catch(() => undefined);

    expect(await child.exited).toBe(1);
    const fatal = await child.line((l) => l.message === 'fatal error; shutting down');
    expect(fatal).toMatchObject({ level: 'error', kind, requestId, service: 'lifecycle' });
    expect(String(fatal.error)).toMatch(/on purpose/);
    // The orderly path: the shutdown is announced, then the service's closers run, then the exit.
    const shuttingDown = await child.line((l) => l.message === 'shutting down');
    expect(shuttingDown).toMatchObject({ reason: kind, exitCode: 1 });
    await child.line((l) => l.message === 'closer ran');
    expect(child.lines.indexOf(shuttingDown)).toBeLessThan(child.lines.findIndex((l) => l.message === 'closer ran'));
  });
});

describe('SIGTERM drains first (SHUTDOWN_DRAIN_MS)', () => {
  test('not ready at once, still serving during the drain, then closed in order with exit code 0', async () => {
    const child = await startChild({ SHUTDOWN_DRAIN_MS: '2000' });
    await child.line(listening);
    expect((await fetch(`${child.url}/ready`)).status).toBe(200);
    const signalled = Date.now();
    child.process.kill('SIGTERM');
    await child.line((l) => l.message === 'shutting down');
    const ready = await fetch(`${child.url}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { data: unknown }).data).toMatchObject({ draining: true });
    // New requests are still served while the load balancers take the instance out of rotation.
    const during = await fetch(`${child.url}/store`);
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');
    expect(await child.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(2_000);
    const drainOver = child.lines.findIndex((l) => l.message === 'drain over; closing');
    expect(drainOver).toBeGreaterThan(-1);
    expect(drainOver).toBeLessThan(child.lines.findIndex((l) => l.message === 'closer ran'));
  });
});

describe('a store or broker that stays away', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-lifecycle-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('MongoDB gone beyond OUTAGE_EXIT_MS: the process exits non-zero after an orderly shutdown', async () => {
    // A store of our own (the run's shared store must stay up): MONGODB_URI would make the launcher reuse that one.
    const sharedUri = process.env.MONGODB_URI;
    delete process.env.MONGODB_URI;
    const store = await startMongo({ persistent: false, dataDir: path.join(dataDir, 'mongo'), port: await freePort() }).finally(() => {
      process.env.MONGODB_URI = sharedUri;
    });
    try {
      const child = await startChild({ MONGODB_URI: store.uri, OUTAGE_EXIT_MS: '1500' });
      await child.line(listening);
      await store.stop();
      expect(await child.exited).toBe(1);
      expect(await child.line((l) => l.message?.startsWith('dependency unreachable beyond the limit') ?? false)).toMatchObject({ dependency: 'MongoDB' });
      expect(await child.line((l) => l.message === 'shutting down')).toMatchObject({ reason: 'MongoDB unreachable', exitCode: 1 });
    } finally {
      await store.stop();
    }
  });

  test('a short store outage is ridden out: the same process answers again once the store is back', async () => {
    const sharedUri = process.env.MONGODB_URI;
    delete process.env.MONGODB_URI;
    const storePort = await freePort();
    const start = () => startMongo({ persistent: true, dataDir: path.join(dataDir, 'short'), port: storePort });
    let store = await start().finally(() => {
      process.env.MONGODB_URI = sharedUri;
    });
    try {
      const child = await startChild({ MONGODB_URI: store.uri, OUTAGE_EXIT_MS: '60000' });
      await child.line(listening);
      await store.stop();
      await child.line((l) => l.message === 'dependency unreachable');
      delete process.env.MONGODB_URI;
      store = await start().finally(() => {
        process.env.MONGODB_URI = sharedUri;
      });
      await child.line((l) => l.message === 'dependency reachable again');
      const res = await fetch(`${child.url}/store`);
      expect(res.status).toBe(200);
      expect(child.process.exitCode).toBeNull();
    } finally {
      await store.stop();
    }
  });

  test('NATS gone for longer than OUTAGE_EXIT_MS is not an outage: the process stays up, serves and reports DEGRADED', async () => {
    // A broker of our own: the machine's NATS on 4222 is shared and never stopped.
    const broker = await startNatsServer({ storeDir: path.join(dataDir, 'nats') });
    try {
      const child = await startChild({ NATS_URL: broker.uri, OUTAGE_EXIT_MS: '1000' });
      await child.line(listening);
      await broker.stop();
      // Three times the limit that ends the process when it is the store that is away.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(child.process.exitCode).toBeNull();
      const ready = await fetch(`${child.url}/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { data: unknown }).data).toMatchObject({ status: 'DEGRADED', checks: { mongodb: 'UP', nats: 'DOWN' } });
      expect((await fetch(`${child.url}/store`)).status).toBe(200);
      expect(child.lines.some((l) => l.message?.startsWith('dependency unreachable beyond the limit'))).toBe(false);
    } finally {
      await broker.stop();
    }
  });

  test('a frozen broker (connections open, no PONG) leaves /ready answering at once, DEGRADED, inside the gateway probe bound', async () => {
    const broker = await startNatsServer({ storeDir: path.join(dataDir, 'nats-frozen') });
    try {
      const child = await startChild({ NATS_URL: broker.uri });
      await child.line(listening);
      broker.signal('SIGSTOP');
      // The gateway's probe gives /ready 2 s at most; a replica that took longer was taken out of rotation, with
      // every other replica connected to the same node (bench:faults).
      const ready = await fetch(`${child.url}/ready`, { signal: AbortSignal.timeout(1_500) });
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { data: unknown }).data).toMatchObject({ status: 'DEGRADED', checks: { mongodb: 'UP', nats: 'DOWN' } });
    } finally {
      broker.signal('SIGCONT');
      await broker.stop();
    }
  });

  test('a broker unreachable at start-up: start-up gives up after OUTAGE_EXIT_MS instead of waiting for ever', async () => {
    const nothingThere = await freePort();
    const child = await startChild({ NATS_URL: `nats://127.0.0.1:${nothingThere}`, OUTAGE_EXIT_MS: '1000', MONGODB_URI: testEnv().mongoUri });
    expect(await child.exited).toBe(1);
    expect(await child.line((l) => l.message === 'start-up failed')).toMatchObject({ error: expect.stringMatching(/NATS unreachable/) });
  });
});
