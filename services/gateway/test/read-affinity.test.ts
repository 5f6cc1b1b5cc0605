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
