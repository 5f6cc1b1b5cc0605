/**
 * Measures the place queries of issue 39 (box, near, clusters, regions, nearby) and the house list, in-process
 * like bench-houses.ts: seeds a throw-away database with listings spread over Korea, first `--small` of them,
 * then up to `--count`, and prints p50/p99 latency and the CPU each request cost, this process (the service)
 * and the store's process apart when the store is a child of this one (the local store). A script that prints
 * figures, not a test.
 *
 *   npx tsx scripts/bench-place.ts [--small 300] [--count 100000] [--runs 40]
 *
 * MONGODB_URI: a running server; otherwise the local launcher starts a throw-away one (scripts/lib/mongo.ts).
 * `--patient`: the store gets 120 s where the services give it 5 s. The local store scans, and while a scan of
 * 100,000 listings runs it answers nothing else, the driver's heartbeat included, so past about 5 s the services'
 * driver gives the server up and the request answers 503; with `--patient` the scan's own time is measured.
 * The app runs without its response cache (every request computes its answer).
 */
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectMongo, createLogger, generateDevKeyPair } from '@binzip/shared';
import mongoose from 'mongoose';
import request from 'supertest';
import { buildApp } from '../services/houses/src/service';
import { housesModels } from '../services/houses/src/models';
import { startMongo } from './lib/mongo';
import { seedHouses } from './seed-houses';

const GANGNEUNG = { latitude: 37.7519, longitude: 128.8761 };

const scenarios = (someHouse: number): Array<[string, string]> => [
  ['list', '/api/v1/houses'],
  ['list + price range', '/api/v1/houses?minPrice=10000&maxPrice=30000'],
  ['box: a county (~25 km)', '/api/v1/houses/map?south=37.65&west=128.75&north=37.9&east=129.0'],
  ['box: a province', '/api/v1/houses/map?south=37.0&west=127.1&north=38.6&east=129.4'],
  ['box: the country', '/api/v1/houses/map?south=33&west=124&north=39&east=132'],
  ['box + filters', '/api/v1/houses/map?south=37.0&west=127.1&north=38.6&east=129.4&rentalType=SALE&maxPrice=20000'],
  ['near 20 km', `/api/v1/houses/near?latitude=${GANGNEUNG.latitude}&longitude=${GANGNEUNG.longitude}&radiusKm=20`],
  ['near 100 km', `/api/v1/houses/near?latitude=${GANGNEUNG.latitude}&longitude=${GANGNEUNG.longitude}&radiusKm=100`],
  ['clusters: country z6', '/api/v1/houses/clusters?south=33&west=124&north=39&east=132&zoom=6'],
  ['clusters: province z9', '/api/v1/houses/clusters?south=37.0&west=127.1&north=38.6&east=129.4&zoom=9'],
  ['regions (uncached)', '/api/v1/houses/regions'],
  ['nearby', `/api/v1/houses/${someHouse}/nearby`],
];

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}
const numberOption = (name: string, fallback: number): number => {
  const value = option(name);
  return value === undefined ? fallback : Number(value);
};

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** CPU time (ms) of this process's children (the local store), from /proc; undefined elsewhere. */
function childrenCpuMs(): number | undefined {
  try {
    const ticks = 100; // USER_HZ on Linux
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      total += ((Number(fields[11]) + Number(fields[12])) / ticks) * 1000;
    }
    return total;
  } catch {
    return undefined;
  }
}

async function measure(agent: request.Agent, label: string, someHouse: number, runs: number): Promise<void> {
  console.log(`\n${label}`);
  console.log(
    `${'scenario'.padEnd(26)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'cpu ms/req'.padStart(11)} ${'store cpu'.padStart(10)} ${'answer'.padStart(8)}`,
  );
  for (const [name, url] of scenarios(someHouse)) {
    const warm = await agent.get(url);
    // The services give the store about 5 s (503 C0000 after it): a query that a scanning store cannot answer in
    // time is reported as such, and the next scenario is measured.
    if (warm.status !== 200) {
      console.log(`${name.padEnd(26)} HTTP ${warm.status} ${String((warm.body as { code?: string }).code)} (the store did not answer in time)`);
      continue;
    }
    for (let i = 0; i < 2; i++) await agent.get(url);
    const timings: number[] = [];
    let size = 0;
    // At 100,000 listings a scanning store (the local one) can take longer than the driver waits for it, and that
    // run answers 503: counted and shown, not measured, so one slow run does not end the benchmark.
    let unavailable = 0;
    const cpuBefore = process.cpuUsage();
    const storeBefore = childrenCpuMs();
    for (let i = 0; i < runs; i++) {
      const started = process.hrtime.bigint();
      const res = await agent.get(url);
      if (res.status === 503) {
        unavailable += 1;
        continue;
      }
      timings.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
      const data = (res.body as { data: { totalElements?: number } | unknown[] }).data;
      size = Array.isArray(data) ? data.length : (data.totalElements ?? 0);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const storeAfter = childrenCpuMs();
    timings.sort((a, b) => a - b);
    if (timings.length === 0) {
      console.log(`${name.padEnd(26)} HTTP 503 in all ${runs} runs (the store did not answer in time)`);
      continue;
    }
    const perRequest = (cpu.user + cpu.system) / 1000 / runs;
    const storePerRequest = storeBefore !== undefined && storeAfter !== undefined ? (storeAfter - storeBefore) / runs : undefined;
    console.log(
      `${name.padEnd(26)} ${percentile(timings, 50).toFixed(1).padStart(8)} ${percentile(timings, 99).toFixed(1).padStart(8)} ${perRequest.toFixed(2).padStart(11)} ${(storePerRequest === undefined ? 'n/a' : storePerRequest.toFixed(1)).padStart(10)} ${String(size).padStart(8)}${unavailable ? `  (${unavailable} of ${runs} runs: 503)` : ''}`,
    );
  }
}

async function main(): Promise<void> {
  const small = numberOption('small', 300);
  const count = numberOption('count', 100_000);
  const runs = numberOption('runs', 40);
  const dbName = `bench_place_${Date.now().toString(36)}`;

  const store = await startMongo({ persistent: false, dataDir: mkdtempSync(path.join(os.tmpdir(), 'bench-place-')) });
  const patient = process.argv.includes('--patient');
  const connection = patient
    ? await mongoose
        .createConnection(store.uri, {
          dbName,
          serverSelectionTimeoutMS: 120_000,
          connectTimeoutMS: 120_000,
          heartbeatFrequencyMS: 10_000,
          bufferCommands: false,
        })
        .asPromise()
    : await connectMongo(store.uri, dbName);
  try {
    const app = buildApp({ connection, logger: createLogger('bench', 'silent'), publicKey: generateDevKeyPair().publicKey });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const agent = request.agent(server);
    const models = housesModels(connection);

    let seeded = 0;
    for (const target of [small, count]) {
      const started = Date.now();
      const result = await seedHouses(connection, { count: target - seeded, seed: 42 + seeded });
      seeded = target;
      console.log(`seeded ${result.inserted} listings (now ${seeded}) in ${Date.now() - started} ms`);
      const someHouse = (await models.houses.findOne({ listed: true }, { _id: 1 }).lean().exec())?._id ?? 1;
      await measure(
        agent,
        `${seeded} listings (${runs} runs per scenario; store ${process.env.MONGODB_URI ? 'MONGODB_URI' : 'local launcher'}${patient ? ', given 120 s' : ''})`,
        someHouse,
        runs,
      );
    }
    await new Promise((resolve) => server.close(resolve));
  } finally {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await store.stop();
  }
}

main().catch((err) => {
  console.error(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
