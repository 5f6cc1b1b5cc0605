/**
 * Measures the public house list (several filter combinations) in-process: seeds a throw-away database
 * (or reuses one), drives buildApp over HTTP with supertest, prints p50/p95/max latency and heap use.
 * A script that prints figures, not a test.
 *
 *   npx tsx scripts/bench-houses.ts [--count 20000] [--runs 40] [--db bench_houses_x --keep]
 *
 * MONGODB_URI: a running server; otherwise the local launcher starts a throw-away one (scripts/lib/mongo.ts).
 * --db with an existing data set of at least --count listings reuses it; --keep leaves the database behind.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectMongo, createLogger, generateDevKeyPair } from '@binzip/shared';
import request from 'supertest';
import { buildApp } from '../services/houses/src/service';
import { housesModels } from '../services/houses/src/models';
import { startMongo } from './lib/mongo';
import { SEED_AUTHOR_BASE_ID, seedHouses } from './seed-houses';

const SCENARIOS: Array<[string, string]> = [
  ['no filter', ''],
  ['page 50', 'page=50'],
  ['rentalType', 'rentalType=JEONSE'],
  ['dealState', 'dealState=COMPLETED'],
  ['city region word', `city=${encodeURIComponent('수도권')}`],
  ['city substring', `city=${encodeURIComponent('평창군')}`],
  ['search title', `search=${encodeURIComponent('한옥')}`],
  ['search nickname', `search=${encodeURIComponent('햇살부동산1')}`],
  ['one tag', 'recommendedTag=WANT_TO_FARM'],
  ['two tags', 'recommendedTag=WANT_TO_FARM,HAVE_CHILDREN'],
  ['combined', `rentalType=SALE&city=${encodeURIComponent('경상')}&recommendedTag=WANT_TO_LOOK_A_GOOD_VIEW&dealState=ONGOING`],
  ['combined + search', `rentalType=SALE&city=${encodeURIComponent('강원')}&search=${encodeURIComponent('집')}`],
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
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const count = numberOption('count', 20_000);
  const runs = numberOption('runs', 40);
  const dbName = option('db') ?? `bench_houses_${Date.now().toString(36)}`;
  const keep = process.argv.includes('--keep') || option('db') !== undefined;

  const store = await startMongo({ persistent: false, dataDir: mkdtempSync(path.join(os.tmpdir(), 'bench-houses-')) });
  const connection = await connectMongo(store.uri, dbName);
  try {
    const models = housesModels(connection);
    const existing = await models.houses.countDocuments({ authorId: { $gte: SEED_AUTHOR_BASE_ID } });
    if (existing >= count) {
      console.log(`reusing ${existing} listings in ${dbName}`);
    } else {
      const started = Date.now();
      const seeded = await seedHouses(connection, { count: count - existing });
      console.log(`seeded ${seeded.inserted} listings into ${dbName} in ${Date.now() - started} ms`);
    }

    const app = buildApp({ connection, logger: createLogger('bench', 'silent'), publicKey: generateDevKeyPair().publicKey });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const agent = request(server);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;

    console.log(`\n${'scenario'.padEnd(20)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'total'.padStart(8)}`);
    for (const [name, query] of SCENARIOS) {
      const url = `/api/v1/houses${query ? `?${query}` : ''}`;
      let total = 0;
      for (let i = 0; i < 3; i++) await agent.get(url);
      const timings: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = process.hrtime.bigint();
        const res = await agent.get(url);
        timings.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
        total = (res.body as { data: { totalElements: number } }).data.totalElements;
      }
      timings.sort((a, b) => a - b);
      console.log(
        `${name.padEnd(20)} ${percentile(timings, 50).toFixed(1).padStart(8)} ${percentile(timings, 95).toFixed(1).padStart(8)} ${timings[timings.length - 1].toFixed(1).padStart(8)} ${String(total).padStart(8)}`,
      );
    }
    const memory = process.memoryUsage();
    console.log(`\nheap used ${mb(heapBefore)} -> ${mb(memory.heapUsed)}, rss ${mb(memory.rss)} (${runs} runs per scenario, ${count} listings)`);
    await new Promise((resolve) => server.close(resolve));
  } finally {
    if (!keep) await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await store.stop();
  }
}

main().catch((err) => {
  console.error(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
