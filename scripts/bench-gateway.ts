/**
 * Gateway overhead: the same load straight at an upstream and through the gateway (in this process,
 * real sockets on loopback). Prints throughput, latency percentiles and memory; asserts nothing.
 *   tsx scripts/bench-gateway.ts [--seconds 5] [--connections 32]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { createLogger, generateDevKeyPair, listen, signAccessToken } from '../shared/src';
import { buildApp } from '../services/gateway/src/app';
import { configSchema } from '../services/gateway/src/config';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function run(title: string, url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<void> {
  const result = await autocannon({ url, duration: seconds, connections, headers });
  const mem = process.memoryUsage();
  console.log(
    `${title.padEnd(28)} ${Math.round(result.requests.average).toString().padStart(7)} req/s  ` +
      `p50 ${result.latency.p50} ms  p97.5 ${result.latency.p97_5} ms  p99 ${result.latency.p99} ms  ` +
      `errors ${result.errors + result.non2xx}  rss ${Math.round(mem.rss / 2 ** 20)} MiB`,
  );
}

async function main(): Promise<void> {
  const seconds = arg('seconds', 5);
  const connections = arg('connections', 32);
  const body = JSON.stringify({ code: 'SUCCESS', message: '성공', data: { content: Array.from({ length: 8 }, (_, i) => ({ houseId: i, title: '빈집' })) } });
  const upstream = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  upstream.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  const keys = generateDevKeyPair();
  const config = configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey, HOUSES_URLS: upstreamUrl, LOG_LEVEL: 'silent', PORT: '0' });
  const gateway = await listen(buildApp({ config, logger: createLogger('bench', 'silent') }), 0, '127.0.0.1');
  const gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  const token = `Bearer ${signAccessToken({ userId: 1, userName: 'bench', authority: 'USER', userType: 'NONE' }, keys.privateKey)}`;

  console.log(`gateway overhead, ${seconds} s per run, ${connections} connections, node ${process.version}`);
  await run('upstream direct', `${upstreamUrl}/api/v1/houses`, {}, seconds, connections);
  await run('through gateway', `${gatewayUrl}/api/v1/houses`, {}, seconds, connections);
  await run('through gateway + JWT', `${gatewayUrl}/api/v1/houses`, { authorization: token }, seconds, connections);
  gateway.closeAllConnections();
  upstream.closeAllConnections();
  gateway.close();
  upstream.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
