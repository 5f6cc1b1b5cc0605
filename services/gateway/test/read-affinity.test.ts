/**
 * With `UPSTREAM_READ_AFFINITY=path`, anonymous reads go to the replica their path hashes to (issue 37: each replica keeps its own response cache, so
 * spreading the same answer over three replicas computed it three times). Every gateway agrees on the replica, the
 * paths spread over all of them, and a replica marked down gives up only its own paths.
 */
import { gatewayInFrontOf, serveLocally } from './helpers';

const gatewayFor = (houses: string[]) => gatewayInFrontOf(houses, { UPSTREAM_READ_AFFINITY: 'path' });

async function replica(name: string, seen: Map<string, string[]>) {
  return serveLocally((req, res) => {
    const list = seen.get(req.url ?? '') ?? [];
    list.push(name);
    seen.set(req.url ?? '', list);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: name }));
  });
}

const PATHS = Array.from({ length: 30 }, (_, i) => `/api/v1/houses/${i + 1}`);

it('sends each anonymous read to the replica its path hashes to, the same through every gateway', async () => {
  const seen = new Map<string, string[]>();
  const replicas = await Promise.all(['a', 'b', 'c'].map((name) => replica(name, seen)));
  const gateways = [await gatewayFor(replicas.map((r) => r.url)), await gatewayFor([...replicas].reverse().map((r) => r.url))];
  try {
    for (let round = 0; round < 2; round++)
      for (const gw of gateways)
        for (const path of PATHS) {
          const res = await fetch(`${gw.url}${path}`);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
        }
    // Four reads of each path (two rounds, two gateways listing the replicas in other orders): one replica each.
    for (const path of PATHS) expect({ path, replicas: new Set(seen.get(path)).size, reads: seen.get(path)?.length }).toEqual({ path, replicas: 1, reads: 4 });
    const share = (name: string) => PATHS.filter((path) => seen.get(path)?.[0] === name).length;
    // Spread over all three (30 paths: none gets fewer than 4 unless the hash is broken).
    for (const name of ['a', 'b', 'c']) expect(share(name)).toBeGreaterThanOrEqual(4);

    // Replica a marked down: only its paths move; the others stay where their answers are kept.
    const before = new Map(PATHS.map((path) => [path, seen.get(path)?.[0]]));
    seen.clear();
    gateways[0].gateway.pools.houses.markDown(replicas[0].url);
    for (const path of PATHS) await (await fetch(`${gateways[0].url}${path}`)).arrayBuffer();
    for (const path of PATHS) {
      const now = seen.get(path)?.[0];
      if (before.get(path) === 'a') expect(now).not.toBe('a');
      else expect({ path, now }).toEqual({ path, now: before.get(path) });
    }
  } finally {
    for (const gw of gateways) gw.close();
    await Promise.all(replicas.map((r) => r.close()));
  }
});

it('keeps a path on its replica while that one has only a few requests in flight (at a light load, spilling would compute the answer again)', async () => {
  const held: Array<() => void> = [];
  const served: string[] = [];
  const replicas = await Promise.all(
    ['a', 'b', 'c'].map((name) =>
      serveLocally((_req, res) => {
        served.push(name);
        held.push(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: name }));
        });
      }),
    ),
  );
  const gw = await gatewayFor(replicas.map((r) => r.url));
  try {
    // Three reads of one path at once, each held: one replica takes all three.
    const reads = Array.from({ length: 3 }, () =>
      fetch(`${gw.url}/api/v1/houses/7`)
        .then((res) => res.arrayBuffer())
        .catch(() => undefined),
    );
    while (held.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(new Set(served).size).toBe(1);
    for (const answer of held) answer();
    await Promise.all(reads);
  } finally {
    gw.close();
    await Promise.all(replicas.map((r) => r.close()));
  }
});

it('spills a hot path to the next replica by its hash once its own holds more than its bounded share, and takes it back when the load is gone', async () => {
  // Replicas that hold every answer until released: the requests in flight pile up as on a busy replica.
  const held: Array<() => void> = [];
  const served = new Map<string, number>();
  let holding = true;
  const replicas = await Promise.all(
    ['a', 'b', 'c'].map((name) =>
      serveLocally((req, res) => {
        served.set(name, (served.get(name) ?? 0) + 1);
        const answer = () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: name }));
        };
        if (holding) held.push(answer);
        else answer();
      }),
    ),
  );
  const gw = await gatewayFor(replicas.map((r) => r.url));
  const hot = '/api/v1/houses?page=0&size=8';
  try {
    // 30 reads of one path at once: without a bound all 30 wait on the replica it hashes to.
    const reads = Array.from({ length: 30 }, () =>
      fetch(`${gw.url}${hot}`)
        .then((res) => res.json() as Promise<{ data: string }>)
        .catch(() => ({ data: 'failed' })),
    );
    while (held.length < 30) await new Promise((resolve) => setTimeout(resolve, 10));
    const counts = ['a', 'b', 'c'].map((name) => served.get(name) ?? 0);
    // None holds more than 1.5 times its fair share (ceil(1.5 × 30 / 3) = 15): the path's own replica and the next
    // by its hash take half each (with ε = 0.5 two replicas hold the whole at their bound).
    expect(Math.max(...counts)).toBeLessThanOrEqual(15);
    expect(counts.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
    holding = false;
    for (const answer of held.splice(0)) answer();
    const answers = await Promise.all(reads);
    // Each answer came from the replica that held it.
    expect(['a', 'b', 'c'].map((name) => answers.filter((answer) => answer.data === name).length)).toEqual(counts);

    // The load gone, the path goes back to one replica, one read at a time: its own, one of those that took the most.
    served.clear();
    for (let i = 0; i < 5; i++) await (await fetch(`${gw.url}${hot}`)).arrayBuffer();
    expect([...served.values()]).toEqual([5]);
    const home = [...served.keys()][0];
    expect(counts[['a', 'b', 'c'].indexOf(home)]).toBe(Math.max(...counts));
  } finally {
    gw.close();
    await Promise.all(replicas.map((r) => r.close()));
  }
});
