/**
 * A replica lost under requests (issue 37): a read whose connection failed before its answer began is answered by
 * another replica, and one waiting on a replica that stopped answering (a frozen process) moves to another once the
 * replica is marked down; a write cut off in flight is not sent twice.
 */
import http from 'node:http';
import { gatewayInFrontOf, serveLocally } from './helpers';

/** Every request in turn, so each test knows which replica a read meets first (read affinity would choose by its path). */
const ROUND_ROBIN = { UPSTREAM_READ_AFFINITY: 'off' };

const answer = (res: http.ServerResponse, data: string) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data }));
};

it('answers a read from the other replica when the first one drops the connection before answering', async () => {
  const writes: string[] = [];
  const dropping = await serveLocally((req) => {
    if (req.method === 'POST') writes.push('dropping');
    req.socket.destroy();
  });
  const healthy = await serveLocally((req, res) => {
    if (req.method === 'POST') writes.push('healthy');
    answer(res, 'healthy');
  });
  const gw = await gatewayInFrontOf([dropping.url, healthy.url], ROUND_ROBIN);
  try {
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${gw.url}/api/v1/houses`);
      expect({ status: res.status, data: ((await res.json()) as { data: string }).data }).toEqual({ status: 200, data: 'healthy' });
    }
    // A write that reached the dropping replica may have been stored there: it is not sent again.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gw.url}/api/v1/houses/scrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 502).length).toBe(writes.filter((w) => w === 'dropping').length);
    expect(writes.length).toBe(4);
  } finally {
    gw.close();
    await dropping.close();
    await healthy.close();
  }
});

it('moves a read waiting on a replica that stopped answering to another one once the replica is marked down', async () => {
  const frozen = await serveLocally(() => undefined);
  const healthy = await serveLocally((_req, res) => answer(res, 'healthy'));
  const gw = await gatewayInFrontOf([frozen.url, healthy.url], ROUND_ROBIN);
  try {
    // The first request goes to the frozen replica (round robin starts there) and waits.
    const started = Date.now();
    const waiting = fetch(`${gw.url}/api/v1/houses`);
    await new Promise((r) => setTimeout(r, 300));
    // What the readiness probe does when the replica does not answer /ready in time.
    gw.gateway.pools.houses.markDown(frozen.url);
    const res = await waiting;
    expect({ status: res.status, data: ((await res.json()) as { data: string }).data }).toEqual({ status: 200, data: 'healthy' });
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    gw.close();
    await frozen.close();
    await healthy.close();
  }
});

it('keeps a read waiting on its replica when every replica is marked down at once (their probes failed together)', async () => {
  const held: Array<() => void> = [];
  const hold = (name: string) => serveLocally((_req, res) => held.push(() => answer(res, name)));
  const first = await hold('first');
  const second = await hold('second');
  const gw = await gatewayInFrontOf([first.url, second.url], ROUND_ROBIN);
  try {
    const waiting = fetch(`${gw.url}/api/v1/houses`);
    await new Promise((r) => setTimeout(r, 300));
    // Both probes fail in the same round (the broker node both ping is frozen): the read moves from the first to
    // the second, then has nowhere better to go and waits for the second's answer.
    gw.gateway.pools.houses.markDown(first.url);
    await new Promise((r) => setTimeout(r, 200));
    gw.gateway.pools.houses.markDown(second.url);
    await new Promise((r) => setTimeout(r, 200));
    for (const release of held) release();
    const res = await waiting;
    expect({ status: res.status, data: ((await res.json()) as { data: string }).data }).toEqual({ status: 200, data: 'second' });
  } finally {
    gw.close();
    await first.close();
    await second.close();
  }
});
