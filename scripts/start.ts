/**
 * `npm start`: the whole system on one machine. Uses MONGODB_URI / NATS_URL when given, else starts what is
 * missing on loopback (a persistent dev MongoDB-protocol server and NATS), then every service and the
 * gateway. Ctrl-C stops everything.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { generateDevKeyPair } from '../shared/src/core/auth';
import { startMongo } from './lib/mongo';
import { ensureNats } from './lib/nats';
import { devMongoPort, preflight } from './lib/preflight';
import { DEFAULT_PORTS, REPO_ROOT, SERVICES, devDataDir, devNatsPrefix, loadOrCreateDevKeys, startSystem, type RunningSystem } from './lib/system';

async function main(): Promise<void> {
  const dataDir = devDataDir();
  const log = (line: string) => console.log(`[start] ${line}`);

  // Again here (npm start checked before building): something may have taken a port meanwhile.
  const checked = await preflight();
  if (checked.problems.length > 0) {
    for (const problem of checked.problems) console.error(`[start] ${problem}`);
    process.exit(1);
  }
  for (const note of checked.notes) log(note);
  log(`data folder: ${dataDir}`);
  const givenStore = Boolean(process.env.MONGODB_URI?.trim());
  const mongo = await startMongo({ persistent: true, dataDir, port: devMongoPort(), log });
  const nats = await ensureNats({ dataDir });
  const keys = loadOrCreateDevKeys(dataDir, generateDevKeyPair);
  const natsPrefix = devNatsPrefix(dataDir, { create: true });
  log(`NATS subject prefix: ${natsPrefix || '(none)'}`);

  const services = SERVICES.filter((name) => existsSync(path.join(REPO_ROOT, 'services', name, 'dist', 'main.js')));
  const missing = SERVICES.filter((name) => !services.includes(name));
  if (missing.length > 0) log(`not built, skipped: ${missing.join(', ')}`);
  // REPLICAS copies of every service and of the gateway (ports 7001+10i, 8080+i), HOUSES_INSTANCES of houses
  // (issue 37; the container set-up gives each its own address instead).
  const replicas = Math.max(1, Number(process.env.REPLICAS ?? 1));
  const housesInstances = Number(process.env.HOUSES_INSTANCES ?? replicas);

  const stores = [nats, mongo];
  // Declared before stopAll: a failed start (or Ctrl-C during it) calls stopAll before startSystem returns, and
  // reading a `const system` still in its temporal dead zone threw there, leaving the stores running.
  let system: RunningSystem | undefined = undefined;
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping…');
    await system?.stop();
    for (const store of stores) await store.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  system = await startSystem({
    mongoUri: mongo.uri,
    natsUrl: nats.uri,
    natsPrefix,
    publicKey: keys.publicKey,
    privateKey: keys.privateKey,
    services: services,
    instances: { ...Object.fromEntries(services.map((name) => [name, replicas])), houses: housesInstances },
    gateways: replicas,
    ports: { ...DEFAULT_PORTS, gateway: Number(process.env.PORT ?? DEFAULT_PORTS.gateway) },
    env: { DEV_OUTBOX_DIR: process.env.DEV_OUTBOX_DIR ?? path.join(dataDir, 'outbox') },
    inheritOutput: true,
    // A service that exits by itself (a lasting store outage, a fatal error) is started again with backoff.
    log,
  }).catch(async (err: Error) => {
    console.error(`[start] ${err.message}`);
    await stopAll(1);
    throw err;
  });

  for (const [name, handles] of Object.entries(system.services)) {
    for (const handle of handles ?? []) log(`${handle.name}: ${handle.url} (${name})`);
  }
  log(`SMS and e-mail codes (local senders) are written to ${path.join(dataDir, 'outbox', 'messages.jsonl')}`);
  log(`NATS: ${{ given: 'given by NATS_URL', found: 'found running', started: 'started nats-server' }[nats.how]} at ${nats.uri}`);
  log(`store: ${givenStore ? 'given by MONGODB_URI' : `started at ${mongo.uri} (data in ${path.join(dataDir, 'mongo')})`}`);
  log(`gateway:       ${system.url}  (GET ${system.url}/ready)`);
  for (const gateway of system.gateways.slice(1)) log(`gateway:       ${gateway.url}`);
  log(`API reference: ${system.url}/docs`);
  log(`admin console: ${system.url}/admin  (first administrator: npm run admin:create, README)`);
  log('press Ctrl-C to stop');
}

main().catch((err: Error) => {
  console.error(`[start] failed: ${err.message}`);
  process.exit(1);
});
