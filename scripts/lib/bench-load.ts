/**
 * A fixed-rate load process for `npm run bench:gateway`: sends `--rate` requests a second for `--seconds`
 * over keep-alive connections, on a schedule that does not wait for answers (open loop, so a slow path shows
 * in the latency rather than lowering the rate), and prints one JSON line with p50/p99 in microseconds.
 * wrk and autocannon measure saturation; this measures latency at a steady rate with sub-millisecond resolution.
 *   tsx scripts/lib/bench-load.ts --url http://127.0.0.1:8080/api/v1/boards/category?name=INTRO --rate 300 --seconds 15 [--header 'authorization: Bearer …']
 */
import http from 'node:http';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const url = new URL(arg('url') ?? '');
  const rate = Number(arg('rate') ?? 300);
  const seconds = Number(arg('seconds') ?? 15);
  const headers: Record<string, string> = {};
  const header = arg('header');
  if (header) headers[header.slice(0, header.indexOf(':')).trim()] = header.slice(header.indexOf(':') + 1).trim();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const latencies: number[] = [];
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = process.hrtime.bigint();
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(Number(process.hrtime.bigint() - started) / 1_000);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  // Warm the connections and the JIT before measuring.
  for (let i = 0; i < 200; i++) await one();
  latencies.length = 0;
  const total = rate * seconds;
  const start = process.hrtime.bigint();
  const pending: Promise<void>[] = [];
  for (let sent = 0; sent < total;) {
    const due = Math.min(total, Math.floor((Number(process.hrtime.bigint() - start) / 1e9) * rate) + 1);
    while (sent < due) {
      pending.push(one());
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  console.log(JSON.stringify({ requests: latencies.length, errors, p50: at(0.5), p99: at(0.99) }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
