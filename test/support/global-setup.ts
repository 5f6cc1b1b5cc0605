import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDevKeyPair } from '../../shared/src/core/auth';
import { QUERY_SHAPES_DIR_ENV } from '../../shared/src/store/query-shapes';
import { startMongo, type RunningStore } from '../../scripts/lib/mongo';
import { ensureNats } from '../../scripts/lib/nats';

declare global {
  var __BINZIP_STORES__: RunningStore[] | undefined;
}

/** Starts the real stores once for the whole run; workers inherit the addresses through the environment. */
export default async function globalSetup(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-test-'));
  const mongo = await startMongo({ persistent: false, dataDir });
  const nats = await ensureNats({ dataDir });
  globalThis.__BINZIP_STORES__ = [mongo, nats];
  const keys = generateDevKeyPair();
  process.env.MONGODB_URI = mongo.uri;
  process.env.NATS_URL = nats.uri;
  process.env.JWT_PUBLIC_KEY = keys.publicKey;
  process.env.JWT_PRIVATE_KEY = keys.privateKey;
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
  process.env.BINZIP_TEST_RUN = `r${Date.now().toString(36)}`;
  process.env.BINZIP_TEST_DATA_DIR = dataDir;
  // Every connection of the run (workers and the processes they start) records its query shapes here;
  // the global teardown checks them against the declared indexes (shared/src/query-shapes.ts).
  process.env[QUERY_SHAPES_DIR_ENV] = path.join(dataDir, 'query-shapes');
}
