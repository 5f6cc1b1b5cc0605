/**
 * The house list through the real gateway and real houses processes, with one and then two houses
 * instances (what an operator gains by scaling houses alone). Prints throughput, latency and the
 * processes' memory; asserts nothing.
 *
 *   npm run bench:system -- [--count 2000] [--seconds 8] [--connections 16]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts throw-away stores. On a 2-core machine the load
 * generator, gateway and instances share the cores, so compare the rows rather than read them as capacity.
 */
import autocannon from 'autocannon';
import { connectMongo } from '../shared/src';
import { numberArg as arg, rssMiB, startBenchStores } from './lib/bench-stores';
import { startSystem, type RunningSystem } from './lib/system';
import { seedHouses } from './seed-houses';

async function measure(system: RunningSystem, instances: number, seconds: number, connections: number): Promise<void> {
  const paths = ['/api/v1/houses', `/api/v1/houses?city=${encodeURIComponent('수도권')}&size=8`, '/api/v1/houses?rentalType=JEONSE&dealState=ONGOING'];
  const requests = paths.map((p) => ({ method: 'GET' as const, path: p }));
  const result = await autocannon({ url: system.url, requests, duration: seconds, connections });
  const pids = [system.gateway.child.pid, ...(system.services.houses ?? []).map((h) => h.child.pid)].filter((p): p is number => p !== undefined);
  console.log(
    `houses x${instances}   ${Math.round(result.requests.average).toString().padStart(6)} req/s  p50 ${result.latency.p50} ms  ` +
      `p97.5 ${result.latency.p97_5} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx + result.errors}  rss(gateway+houses) ${rssMiB(pids)} MiB`,
  );
}

async function main(): Promise<void> {
  const count = arg('count', 2_000);
  const seconds = arg('seconds', 8);
  const connections = arg('connections', 16);
  // The bench's streams and database go away however it ends: done, failed, or interrupted (Ctrl-C).
  const stores = await startBenchStores('bench', ['houses']);
  const { mongo, nats, keys, dbPrefix, natsPrefix } = stores;
  let system: RunningSystem | undefined;
  stores.stopSystem = async () => system?.stop();
  try {
    const connection = await connectMongo(mongo.uri, `${dbPrefix}houses`);
    const seeded = await seedHouses(connection, { count }).finally(() => connection.close());
    console.log(`seeded ${seeded.inserted} listings; ${seconds} s per run, ${connections} connections`);
    for (const instances of [1, 2]) {
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
      });
      await measure(system, instances, seconds, connections);
      await system.stop();
      system = undefined;
    }
  } finally {
    await stores.cleanUp();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
