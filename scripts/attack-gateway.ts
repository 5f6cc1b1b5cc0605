/**
 * The gateway under the attacks of issue 34, bounded, with figures: the built gateway
 * (`services/gateway/dist/main.js`, or `--gateway path/to/main.js` for another build) runs as a process of its own
 * in front of small real HTTP upstreams that read each body and answer like a service (after `--delay` ms), and
 * the attacks come from this process over loopback. For each attack it prints what the clients got (statuses,
 * connection errors), whether the gateway is still up (a fatal error starts its orderly exit: its log is read for
 * it) and the gateway's RSS, idle and at its peak (sampled every 100 ms), against the memory limit of its
 * Kubernetes manifest (deploy/kubernetes/base/gateway.yaml). Asserts nothing.
 *
 *   1. 300 concurrent anonymous POSTs with a body to a members' operation (answered 401 unread since the gateway
 *      knows who may call what), then the same from a member, to one slow instance (more than its 256 connections);
 *   2. 300 tiny members' requests with `Expect: 100-continue` from 20 addresses, then how long an ordinary request
 *      takes;
 *   3. 32 slow anonymous 10 MB uploads from one address, then from four (128), each sending 1 MiB a second;
 *   4. 32 slow members' 10 MB uploads from one address (streamed to the service);
 *   5. 4 addresses x 32 slow 1 MiB members' JSON bodies (held at the gateway: its body budget);
 *   6. one member's 11 MB upload (the 413).
 *
 *   npm run bench:attacks:gateway -- [--gateway .cache/gateway-unfixed/main.js] [--delay 1500] [--seconds 8]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generateDevKeyPair, signAccessToken } from '../shared/src';
import { freePort } from './lib/server-process';
import { REPO_ROOT, SERVICES as SERVICE_NAMES, serviceEntry } from './lib/system';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const GATEWAY = arg('gateway', '') ? path.resolve(arg('gateway', '')) : serviceEntry('gateway');
const DELAY_MS = Number(arg('delay', '1500'));
const SECONDS = Number(arg('seconds', '8'));
const MiB = 1_048_576;
const SERVICES = SERVICE_NAMES.map((name) => name.toUpperCase());

const keys = generateDevKeyPair();
const member = `Bearer ${signAccessToken({ userId: 7, userName: 'bench', authority: 'USER', userType: 'NONE' }, keys.privateKey)}`;

function manifestLimitMiB(): number {
  const manifest = readFileSync(path.join(REPO_ROOT, 'deploy', 'kubernetes', 'base', 'gateway.yaml'), 'utf8');
  const match = /limits:\s*\{\s*memory:\s*(\d+)Mi/.exec(manifest);
  return match ? Number(match[1]) : NaN;
}

function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/** An upstream like a service: reads the whole body, answers after `DELAY_MS`. */
async function startUpstream(): Promise<{ url: string; server: http.Server; bodies: () => number }> {
  let bodies = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/ready' || req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"SUCCESS","message":"성공"}');
      return;
    }
    let length = 0;
    req.on('data', (chunk: Buffer) => (length += chunk.length));
    req.on('end', () => {
      if (length > 0) bodies += 1;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: { length } }));
      }, DELAY_MS);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, bodies: () => bodies };
}

interface Gateway {
  url: string;
  child: ChildProcess;
  log: () => string;
}

async function startGateway(upstreams: Record<string, string>): Promise<Gateway> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), JWT_PUBLIC_KEY: keys.publicKey, LOG_LEVEL: 'warn' };
  for (const service of SERVICES) env[`${service}_URLS`] = upstreams[service];
  const child = spawn(process.execPath, [GATEWAY], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-200_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited: ${log}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child, log: () => log };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the gateway did not start: ${log}`);
}

interface Outcome {
  status?: number;
  error?: string;
}

/**
 * One request on its own connection: `body` sent at once, after the 100 (`expect`), or `slow` (1 MiB a second,
 * `total` bytes declared). Settles with the status, or the connection error; never rejects.
 */
function attempt(
  url: string,
  options: {
    path: string;
    method?: string;
    headers?: http.OutgoingHttpHeaders;
    body?: Buffer;
    expect?: boolean;
    slow?: { total: number };
    localAddress?: string;
  },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', ...options.headers };
    if (options.expect) headers.expect = '100-continue';
    if (options.slow) headers['content-length'] = options.slow.total;
    let timer: NodeJS.Timeout | undefined;
    const req = http.request(
      `${url}${options.path}`,
      { method: options.method ?? 'POST', agent: false, headers, localAddress: options.localAddress },
      (res) => {
        res.resume();
        res.on('end', () => {
          clearInterval(timer);
          req.destroy();
          resolve({ status: res.statusCode });
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearInterval(timer);
      resolve({ error: err.code ?? err.message });
    });
    req.setTimeout(SECONDS * 1_000 + 60_000, () => req.destroy(new Error('no answer')));
    if (options.expect) req.on('continue', () => req.end(options.body));
    else if (options.slow) {
      let sent = 0;
      const chunk = Buffer.alloc(MiB, 0x20);
      const next = () => {
        if (req.destroyed || req.writableEnded) return;
        const size = Math.min(MiB, options.slow!.total - sent);
        sent += size;
        if (sent >= options.slow!.total) {
          clearInterval(timer);
          req.end(chunk.subarray(0, size));
        } else req.write(chunk.subarray(0, size));
      };
      next();
      timer = setInterval(next, 1_000);
    } else req.end(options.body);
  });
}

function summary(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) {
    const key = outcome.status !== undefined ? String(outcome.status) : `error ${outcome.error}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].map(([key, count]) => `${count} x ${key}`).join(', ');
}

async function main(): Promise<void> {
  const limit = manifestLimitMiB();
  console.log(`gateway: ${path.relative(REPO_ROOT, GATEWAY)}; upstream answers after ${DELAY_MS} ms; manifest memory limit ${limit} MiB`);
  console.log('attack | clients got | gateway up | RSS idle -> peak (MiB) | peak / limit');
  const upstreams = Object.fromEntries(await Promise.all(SERVICES.map(async (service) => [service, await startUpstream()] as const)));
  const urls = Object.fromEntries(SERVICES.map((service) => [service, upstreams[service].url]));

  const attacks: Array<{ name: string; run: (url: string) => Promise<string> }> = [
    {
      name: '300 concurrent anonymous POSTs',
      run: async (url) => summary(await Promise.all(Array.from({ length: 300 }, () => attempt(url, { path: '/api/v1/comments', body: Buffer.from('{}') })))),
    },
    {
      name: "300 concurrent members' POSTs",
      run: async (url) =>
        summary(
          await Promise.all(
            Array.from({ length: 300 }, () => attempt(url, { path: '/api/v1/comments', headers: { authorization: member }, body: Buffer.from('{}') })),
          ),
        ),
    },
    {
      name: "300 members' Expect: 100-continue, 20 addresses",
      run: async (url) => {
        const before = upstreams.COMMUNITY.bodies();
        const outcomes = await Promise.all(
          Array.from({ length: 300 }, (_, i) =>
            attempt(url, {
              path: '/api/v1/comments',
              headers: { authorization: member },
              body: Buffer.from(`{"i":${i}}`),
              expect: true,
              localAddress: `127.0.0.${100 + (i % 20)}`,
            }),
          ),
        );
        const started = performance.now();
        const ordinary = await attempt(url, { path: '/api/v1/boards', method: 'GET' });
        const ms = Math.round(performance.now() - started);
        return `${summary(outcomes)}; bodies that reached the service ${upstreams.COMMUNITY.bodies() - before}; then a GET: ${ordinary.status ?? ordinary.error} in ${ms} ms`;
      },
    },
    {
      name: '32 slow anonymous 10 MB uploads, 1 address',
      run: async (url) =>
        summary(await Promise.all(Array.from({ length: 32 }, () => attempt(url, { path: '/api/v1/houses/images', slow: { total: 10 * MiB } })))),
    },
    {
      name: '128 slow anonymous 10 MB uploads, 4 addresses',
      run: async (url) =>
        summary(
          await Promise.all(
            Array.from({ length: 128 }, (_, i) =>
              attempt(url, { path: '/api/v1/houses/images', slow: { total: 10 * MiB }, localAddress: `127.0.0.${20 + (i % 4)}` }),
            ),
          ),
        ),
    },
    {
      name: "32 slow members' 10 MB uploads, 1 address",
      run: async (url) =>
        summary(
          await Promise.all(
            Array.from({ length: 32 }, () =>
              attempt(url, {
                path: '/api/v1/houses/images',
                headers: { authorization: member, 'content-type': 'application/octet-stream' },
                slow: { total: 10 * MiB },
              }),
            ),
          ),
        ),
    },
    {
      name: "128 slow members' 1 MiB JSON bodies, 4 addresses",
      run: async (url) =>
        summary(
          await Promise.all(
            Array.from({ length: 128 }, (_, i) =>
              attempt(url, { path: '/api/v1/boards', headers: { authorization: member }, slow: { total: MiB }, localAddress: `127.0.0.${30 + (i % 4)}` }),
            ),
          ),
        ),
    },
    {
      name: "one member's 11 MB upload",
      run: async (url) =>
        summary([
          await attempt(url, {
            path: '/api/v1/boards/images',
            headers: { authorization: member, 'content-type': 'application/octet-stream' },
            body: Buffer.alloc(11 * MiB, 1),
          }),
        ]),
    },
  ];

  for (const attack of attacks) {
    // A gateway of its own per attack: one attack's crash or leftovers never colour the next one's figures.
    const gateway = await startGateway(urls);
    const pid = gateway.child.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = rssMiB(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid) || 0)), 100);
    let result: string;
    try {
      result = await attack.run(gateway.url);
    } catch (err) {
      result = `failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    clearInterval(sampler);
    const fatal = /fatal error/.test(gateway.log());
    const up = gateway.child.exitCode === null && !fatal;
    console.log(
      `${attack.name} | ${result} | ${up ? 'yes' : `NO${fatal ? ' (fatal error logged)' : ''}`} | ${idle} -> ${peak} | ${Math.round((peak / limit) * 100)} %`,
    );
    gateway.child.kill('SIGKILL');
    await new Promise((resolve) => (gateway.child.exitCode !== null ? resolve(undefined) : gateway.child.once('exit', resolve)));
  }
  for (const upstream of Object.values(upstreams)) {
    upstream.server.closeAllConnections();
    upstream.server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
