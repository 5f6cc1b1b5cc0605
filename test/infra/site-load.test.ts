/**
 * The benchmarks' load generator (scripts/lib/site-load.ts) against a server that answers at once: in the open loop
 * every request is timed from when it was due, and one sent a little early is timed from its sending, so no latency
 * it reports is below zero (a fast answer to an early request once made the anonymous reads' p50 negative).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLoad } from '../../scripts/lib/site-load';

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise((resolve) => server.close(resolve)));

it('open loop: a steady rate is sent whole, and no request is timed as answered before it was sent', async () => {
  const result = await runLoad({
    url,
    mix: { houseList: 1 },
    fixture: { members: [], boardIds: [], houseIds: [1] },
    stateKey: 'site-load-test',
    seconds: 1,
    rate: 2_000,
  });
  expect(result.count).toBe(2_000);
  expect(result.errors).toBe(0);
  expect(result.all.p50).toBeGreaterThanOrEqual(0);
  expect(result.all.p90).toBeGreaterThanOrEqual(result.all.p50);
});
