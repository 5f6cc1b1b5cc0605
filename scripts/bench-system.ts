/**
 * The house list and detail mix through the real gateway and real houses processes, with one, two and three
 * houses instances (what an operator gains by scaling houses alone; issue 37 item 5). Prints throughput, latency,
 * the CPU each part used per request (houses instances summed, the gateway, the store) and the processes' memory;
 * asserts nothing.
 *
 *   npm run bench:system -- [--count 2000] [--seconds 8] [--connections 16] [--max-instances 3]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts throw-away stores. On a 2-core machine the load
 * generator, gateway and instances share the cores, so compare the rows rather than read them as capacity.
 */
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { connectMongo } from '../shared/src';
import { cpuMs, numberArg as arg, rssMiB, startBenchStores } from './lib/bench-stores';
import { startSystem, type RunningSystem } from './lib/system';
import { seedHouses } from './seed-houses';

async function measure(system: RunningSystem, instances: number, seconds: number, connections: number, storePid: number | undefined): Promise<void> {
  const detailIds = await fetch(`${system.url}/api/v1/houses?size=8`)
    .then((r) => r.json() as Promise<{ data?: { content?: Array<{ houseId: number }> } }>)
    .then((b) => (b.data?.content ?? []).map((h) => h.houseId))
    .catch(() => [] as number[]);
  const paths = [
    '/api/v1/houses',
    `/api/v1/houses?city=${encodeURIComponent('수도권')}&size=8`,
    '/api/v1/houses?rentalType=JEONSE&dealState=ONGOING',
    ...detailIds.slice(0, 3).map((id) => `/api/v1/houses/${id}`),
  ];
  const requests = paths.map((p) => ({ method: 'GET' as const, path: p }));
  const houses = (system.services.houses ?? []).map((h) => h.child.pid);
  const sample = () => ({ houses: houses.reduce<number>((sum, pid) => sum + cpuMs(pid), 0), gateway: cpuMs(system.gateway.child.pid), store: cpuMs(storePid) });
  const before = sample();
  const result = await autocannon({ url: system.url, requests, duration: seconds, connections });
  const after = sample();
  const total = result.requests.total || 1;
  const per = (part: keyof typeof before) => ((after[part] - before[part]) / total).toFixed(2);
  const pids = [system.gateway.child.pid, ...houses].filter((p): p is number => p !== undefined);
  console.log(
    `houses x${instances}   ${Math.round(result.requests.average).toString().padStart(6)} req/s  p50 ${result.latency.p50} ms  ` +
      `p97.5 ${result.latency.p97_5} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx + result.errors}  ` +
      `CPU ms/request houses ${per('houses')} gateway ${per('gateway')} store ${storePid ? per('store') : 'n/a'}  rss(gateway+houses) ${rssMiB(pids)} MiB`,
  );
}

async function main(): Promise<void> {
  const count = arg('count', 2_000);
  const seconds = arg('seconds', 8);
  const connections = arg('connections', 16);
  const maxInstances = arg('max-instances', 3);
  // The bench's streams and database go away however it ends: done, failed, or interrupted (Ctrl-C).
  const stores = await startBenchStores('bench', ['houses']);
  const { mongo, nats, keys, dbPrefix, natsPrefix } = stores;
  let system: RunningSystem | undefined;
  stores.stopSystem = async () => system?.stop();
  try {
    const connection = await connectMongo(mongo.uri, `${dbPrefix}houses`);
    const seeded = await seedHouses(connection, { count }).finally(() => connection.close());
    console.log(`seeded ${seeded.inserted} listings; ${seconds} s per run, ${connections} connections`);
    // The store's process, when this bench started it (its CPU is part of every request's cost).
    const storePid = findStorePid(mongo.uri);
    for (let instances = 1; instances <= maxInstances; instances++) {
      system = await startSystem({
        mongoUri: mongo.uri,
        natsUrl: nats.uri,
        publicKey: keys.publicKey,
        privateKey: keys.privateKey,
        services: ['houses'],
        instances: { houses: instances },
        dbPrefix,
        natsPrefix,
        env: { LOG_LEVEL: 'error' },
        // A busy machine may take longer than the default 30 s to start a process.
        readyTimeoutMs: 120_000,
      });
      await measure(system, instances, seconds, connections, storePid);
      await system.stop();
      system = undefined;
    }
  } finally {
    await stores.cleanUp();
  }
}

/** The pid listening on the store's port (`ss`), or undefined (a store given by MONGODB_URI on another host). */
function findStorePid(uri: string): number | undefined {
  try {
    const port = new URL(uri).port;
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString();
    const match = /pid=(\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
