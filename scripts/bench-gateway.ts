/**
 * Gateway overhead, measured honestly: the upstream (an Express app built like every service), the built
 * gateway (`services/gateway/dist/main.js`), a bare Node `http.request` pipe (scripts/lib/bench-pipe.ts: the floor
 * of any Node proxy) and, when installed, nginx (the reference reverse proxy) each run as a process of their own,
 * and the load comes from another process. Prints, for the cheap read `GET /api/v1/boards/category?name=INTRO`,
 * without and with a bearer token:
 *   - req/s at saturation (wrk, else autocannon in a child process) and the ratio to direct;
 *   - p50/p99 at a fixed rate (scripts/lib/bench-load.ts) and what each proxy adds over direct;
 *   - the gateway's RSS (and V8 heap, from its /metrics) idle and every few seconds of a sustained load.
 * Asserts nothing. On a small machine every process shares the cores, so read the ratios, not the absolutes.
 * On a shared, noisy machine the load changes between measurements: `--rounds N` measures every target N times,
 * interleaved, and prints each round's ratio to (or, for latency, difference from) the direct figure of the same
 * round, then the median.
 * `--baseline path/to/main.js` runs a second gateway build (say, main's, built elsewhere) next to this one, so
 * a change is compared with what it replaces under the same load.
 *
 *   npm run bench:gateway -- [--seconds 10] [--connections 32] [--rounds 3] [--rate 300] [--rate-seconds 15] [--soak 60]
 *     [--log-level info] [--baseline /tmp/main/services/gateway/dist/main.js]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDevKeyPair, signAccessToken } from '../shared/src';
import { freePort } from './lib/server-process';
import { REPO_ROOT, serviceEntry } from './lib/system';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const SECONDS = Number(arg('seconds', '10'));
const CONNECTIONS = Number(arg('connections', '32'));
const RATE = Number(arg('rate', '300'));
const RATE_SECONDS = Number(arg('rate-seconds', '15'));
const SOAK_SECONDS = Number(arg('soak', '60'));
const LOG_LEVEL = arg('log-level', 'info');
const ROUNDS = Math.max(1, Number(arg('rounds', '3')));
const BASELINE = arg('baseline', '');
const PATH = '/api/v1/boards/category?name=INTRO';

const children: ChildProcess[] = [];

function which(command: string): string | undefined {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${command}`])
        .toString()
        .trim() || undefined
    );
  } catch {
    return undefined;
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${out}`))));
  });
}

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${url} exited`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

function start(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // Their logs go nowhere, as they would go to a collector: writing them still costs what it costs.
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
}

/** CPU time a process has used (user + system), in ms; clock ticks of 10 ms (CLK_TCK 100 on Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const wrk = which('wrk');

/** Requests a second at saturation, from a separate process. */
async function saturate(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  if (wrk) {
    const out = await run(wrk, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, ...headerArgs, url]);
    const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
    if (errors) console.warn(`  (${errors[1]} non-2xx answers from ${url})`);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  }
  const bin = path.join(REPO_ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const out = await run(process.execPath, [bin, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), ...headerArgs, url]);
  return (JSON.parse(out.slice(out.indexOf('{'))) as { requests: { average: number } }).requests.average;
}

/** p50/p99 in microseconds at a fixed rate, from a separate process. */
async function atFixedRate(url: string, headers: Record<string, string>): Promise<{ p50: number; p99: number; errors: number }> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
  const script = path.join(REPO_ROOT, 'scripts', 'lib', 'bench-load.ts');
  const out = await run(process.execPath, ['--import', 'tsx', script, '--url', url, '--rate', String(RATE), '--seconds', String(RATE_SECONDS), ...headerArgs]);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { p50: number; p99: number; errors: number };
}

function nginxConfig(dir: string, port: number, upstreamPort: number): string {
  const file = path.join(dir, 'nginx.conf');
  writeFileSync(
    file,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream community { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://community;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
  );
  return file;
}

async function main(): Promise<void> {
  const keys = generateDevKeyPair();
  const token = `Bearer ${signAccessToken({ userId: 1, userName: 'bench', authority: 'USER', userType: 'NONE' }, keys.privateKey, 3600)}`;

  const upstreamPort = await freePort();
  const upstream = start(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts', 'lib', 'bench-upstream.ts')], {
    PORT: String(upstreamPort),
    JWT_PUBLIC_KEY: keys.publicKey,
    LOG_LEVEL,
  });
  const direct = `http://127.0.0.1:${upstreamPort}`;
  await waitHealthy(`${direct}/health`, upstream);

  const gatewayPort = await freePort();
  const gateway = start(process.execPath, [serviceEntry('gateway')], {
    HOST: '127.0.0.1',
    PORT: String(gatewayPort),
    JWT_PUBLIC_KEY: keys.publicKey,
    COMMUNITY_URLS: direct,
    LOG_LEVEL,
    // The bench reads the gateway's own /metrics (its V8 heap) from here.
    OPERATOR_ADDRESSES: 'loopback',
    // As the Docker image runs it (see the Dockerfile): it bounds the young generation on Node 24.
    NODE_OPTIONS: '--max-semi-space-size=16',
  });
  const viaGateway = `http://127.0.0.1:${gatewayPort}`;
  await waitHealthy(`${viaGateway}/health`, gateway);
  const gatewayPid = gateway.pid ?? 0;

  const targets: Array<{ name: string; url: string; pid?: number }> = [
    { name: 'direct', url: direct },
    { name: 'gateway', url: viaGateway, pid: gatewayPid },
  ];
  if (BASELINE) {
    const port = await freePort();
    const child = start(process.execPath, [path.resolve(BASELINE)], {
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_PUBLIC_KEY: keys.publicKey,
      COMMUNITY_URLS: direct,
      LOG_LEVEL,
      NODE_OPTIONS: '--max-semi-space-size=16',
    });
    await waitHealthy(`http://127.0.0.1:${port}/health`, child);
    targets.push({ name: 'baseline', url: `http://127.0.0.1:${port}`, pid: child.pid });
  }
  {
    const port = await freePort();
    const child = start(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts', 'lib', 'bench-pipe.ts')], {
      PORT: String(port),
      UPSTREAM: direct,
    });
    await waitHealthy(`http://127.0.0.1:${port}/health`, child);
    targets.splice(1, 0, { name: 'node pipe', url: `http://127.0.0.1:${port}`, pid: child.pid });
  }
  const nginx = which('nginx');
  if (nginx) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
    const port = await freePort();
    const child = start(nginx, ['-p', dir, '-c', nginxConfig(dir, port, upstreamPort), '-g', 'daemon off;'], {});
    await waitHealthy(`http://127.0.0.1:${port}/health`, child);
    targets.splice(1, 0, { name: 'nginx', url: `http://127.0.0.1:${port}` });
  }

  const cpus = os.cpus();
  console.log(
    `gateway benchmark: GET ${PATH}, node ${process.version}, ${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ` +
      `load ${wrk ? 'wrk' : 'autocannon'} ${CONNECTIONS} connections, log level ${LOG_LEVEL}${nginx ? '' : ', nginx not installed (skipped)'}`,
  );
  const idleRss = targets.filter((t) => t.pid !== undefined).map((t) => `${t.name} ${rssMiB(t.pid ?? 0)} MiB`);

  // Warm every path (JIT, keep-alive pools) before measuring.
  for (const target of targets) await saturate(`${target.url}${PATH}`, { authorization: token }, 2);

  const withToken = [false, true];
  console.log(`\nsaturation, ${SECONDS} s each, ${ROUNDS} round(s) interleaved; ratio to direct in the same round`);
  for (const bearer of withToken) {
    const headers: Record<string, string> = bearer ? { authorization: token } : {};
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const ratios = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      let base = NaN;
      for (const target of targets) {
        const value = await saturate(`${target.url}${PATH}`, headers, SECONDS);
        if (target.name === 'direct') base = value;
        rps.get(target.name)?.push(value);
        ratios.get(target.name)?.push(value / base);
      }
    }
    for (const target of targets) {
      const r = ratios.get(target.name) ?? [];
      const spread = r.length > 1 ? `  (rounds ${r.map((x) => x.toFixed(2)).join(' ')})` : '';
      console.log(
        `  ${(bearer ? `${target.name} + token` : target.name).padEnd(18)} ${Math.round(median(rps.get(target.name) ?? []))
          .toString()
          .padStart(6)} req/s  ` + `${median(r).toFixed(2)}x direct${spread}`,
      );
    }
  }

  // CPU per request of the process answering (the upstream for direct, the proxy itself otherwise) does not
  // depend on what else the machine is doing as much as throughput does.
  const cpuPid = (target: { name: string; pid?: number }) => (target.name === 'direct' ? upstream.pid : target.pid);
  console.log(
    `\nfixed ${RATE} req/s, ${RATE_SECONDS} s each, ${ROUNDS} round(s) interleaved (µs, medians; added: median of the ` +
      `differences from direct in the same round; cpu: of the upstream for direct, of the proxy otherwise, per request)`,
  );
  for (const bearer of withToken) {
    const headers: Record<string, string> = bearer ? { authorization: token } : {};
    const figures = new Map<string, { p50: number[]; p99: number[]; added50: number[]; added99: number[]; cpu: number[]; errors: number }>(
      targets.map((t) => [t.name, { p50: [], p99: [], added50: [], added99: [], cpu: [], errors: 0 }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      let base = { p50: NaN, p99: NaN };
      for (const target of targets) {
        const pid = cpuPid(target);
        const cpuBefore = pid ? cpuMs(pid) : NaN;
        const result = await atFixedRate(`${target.url}${PATH}`, headers);
        const entry = figures.get(target.name);
        if (!entry) continue;
        if (pid) entry.cpu.push(((cpuMs(pid) - cpuBefore) * 1000) / (RATE * RATE_SECONDS + 200));
        if (target.name === 'direct') base = result;
        entry.p50.push(result.p50);
        entry.p99.push(result.p99);
        entry.added50.push(result.p50 - base.p50);
        entry.added99.push(result.p99 - base.p99);
        entry.errors += result.errors;
      }
    }
    for (const target of targets) {
      const f = figures.get(target.name);
      if (!f) continue;
      const cpu = f.cpu.length ? ` cpu ${Math.round(median(f.cpu))}` : '';
      const added =
        target.name === 'direct'
          ? ''
          : `  adds p50 ${Math.round(median(f.added50))} µs, p99 ${Math.round(median(f.added99))} µs` +
            (ROUNDS > 1 ? `  (rounds p99 ${f.added99.map((x) => Math.round(x)).join(' ')})` : '');
      console.log(
        `  ${(bearer ? `${target.name} + token` : target.name).padEnd(18)} p50 ${String(Math.round(median(f.p50))).padStart(5)}  ` +
          `p99 ${String(Math.round(median(f.p99))).padStart(6)}${cpu}${added}` +
          (f.errors ? `  errors ${f.errors}` : ''),
      );
    }
  }

  if (SOAK_SECONDS > 0) {
    // RSS alone cannot tell a leak from V8 letting its heap grow before it collects: the heap in use is printed too.
    const sample = async () => `${rssMiB(gatewayPid)}/${await heapUsedMiB(viaGateway)}`;
    const samples = [await sample()];
    const timer = setInterval(() => void sample().then((s) => samples.push(s)), 5_000);
    await saturate(`${viaGateway}${PATH}`, { authorization: token }, SOAK_SECONDS);
    clearInterval(timer);
    samples.push(await sample());
    console.log(
      `\nRSS idle: ${idleRss.join(', ')}; gateway during ${SOAK_SECONDS} s at saturation with a token, every 5 s ` +
        `(RSS/V8 heap in use, MiB): ${samples.join(' ')}`,
    );
  } else {
    console.log(`\nRSS idle: ${idleRss.join(', ')}; gateway after the runs ${rssMiB(gatewayPid)} MiB`);
  }
}

/** The gateway's V8 heap in use, from its own /metrics (prom-client's default process metrics). */
async function heapUsedMiB(base: string): Promise<number> {
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
    const match = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    return match ? Math.round(Number(match[1]) / 1048576) : NaN;
  } catch {
    return NaN;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

main()
  .then(stopAll)
  .catch((err) => {
    console.error(err);
    stopAll();
    process.exit(1);
  });
