/**
 * Scaling a service behind one host name (compose `--scale houses=3`): the gateway resolves the name to every
 * address and spreads requests over all of them, instead of a keep-alive agent sticking to one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, generateDevKeyPair } from '@binzip/shared';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';
import { refreshPools, UpstreamPool, type Resolver } from '../src/proxy/upstreams';

const keys = generateDevKeyPair();

/** Three replicas on one port at 127.0.0.1, .2 and .3 (all loopback on Linux), as one name would resolve. */
async function startReplicas(): Promise<{ port: number; counts: Map<string, number>; close(): void }> {
  const counts = new Map<string, number>();
  const servers: http.Server[] = [];
  const start = async (host: string, port: number) => {
    const server = http.createServer((req, res) => {
      if (req.url !== '/ready') counts.set(host, (counts.get(host) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: host }));
    });
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  const port = await start('127.0.0.1', 0);
  await start('127.0.0.2', port);
  await start('127.0.0.3', port);
  return {
    port,
    counts,
    close: () => {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

it('spreads 300 keep-alive requests to one name resolving to three addresses evenly over all three', async () => {
  const replicas = await startReplicas();
  const resolver: Resolver = async (name) => (name === 'houses' ? ['127.0.0.1', '127.0.0.2', '127.0.0.3'] : []);
  // One path asked 300 times: every request in turn (read affinity would send one path to one replica).
  const config = configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey, HOUSES_URLS: `http://houses:${replicas.port}`, UPSTREAM_READ_AFFINITY: 'off' });
  const gateway = buildGateway({ config, logger: createLogger('scaling-test', 'silent') });
  await refreshPools(gateway.pools, resolver);
  expect(gateway.pools.houses.instances).toHaveLength(3);
  const server = await listenGateway(gateway, 0, '127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/houses`;
    const get = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
    for (let batch = 0; batch < 75; batch++) expect(await Promise.all([get(), get(), get(), get()])).toEqual([200, 200, 200, 200]);
    expect([...replicas.counts.keys()].sort()).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    for (const count of replicas.counts.values()) expect(Math.abs(count - 100)).toBeLessThanOrEqual(10);
  } finally {
    agent.destroy();
    server.closeAllConnections();
    server.close();
    replicas.close();
  }
});

it('follows the name as replicas come and go, and keeps the last addresses when resolution fails', async () => {
  let answer: string[] | Error = ['10.0.0.1', '10.0.0.2'];
  const resolver: Resolver = async () => {
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const pool = new UpstreamPool('houses', ['http://houses:7003', 'http://127.0.0.1:7013']);
  await pool.refresh(resolver);
  expect(pool.instances).toEqual(['http://10.0.0.1:7003', 'http://10.0.0.2:7003', 'http://127.0.0.1:7013']);
  answer = ['10.0.0.3', '10.0.0.1', '10.0.0.2'];
  await pool.refresh(resolver);
  expect(pool.instances).toEqual(['http://10.0.0.1:7003', 'http://10.0.0.2:7003', 'http://10.0.0.3:7003', 'http://127.0.0.1:7013']);
  answer = new Error('ENOTFOUND');
  await pool.refresh(resolver);
  expect(pool.instances).toHaveLength(4);
});
