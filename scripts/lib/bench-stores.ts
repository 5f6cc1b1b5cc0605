/**
 * What the benchmarks that run the built system share: numeric flags, a process's memory and CPU, the process
 * behind a store's address, throw-away stores (a MongoDB-protocol server and NATS) under one database and stream
 * prefix that are forgotten however the run ends (done, failed or Ctrl-C), and a gateway in front of houses
 * instances on them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus, connectMongo, createLogger, generateDevKeyPair } from '../../shared/src';
import { onceOrInterrupted } from './cleanup';
import { startMongo, type RunningStore } from './mongo';
import { ensureNats } from './nats';
import { startSystem, type RunningSystem } from './system';

/** `--name <number>` from the command line, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** `--name <text>` from the command line, or `fallback`. */
export function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

/** Resident memory of the processes, summed, in MiB (`ps`). */
export function rssMiB(pids: number | readonly number[]): number {
  const out = execFileSync('ps', ['-o', 'rss=', '-p', [pids].flat().join(',')]).toString();
  return Math.round(out.split('\n').reduce((sum, line) => sum + (Number(line.trim()) || 0), 0) / 1024);
}

/** CPU time a process has used so far, in ms (utime + stime of /proc/<pid>/stat; 0 when it is gone). */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // Fields 14 and 15 of the file; the split above starts at field 3. Clock ticks of 10 ms (USER_HZ 100).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The process listening on a store's address (`ss`), when it runs on this machine: its CPU is part of the cost. */
export function listenerPid(uri: string): number | undefined {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${new URL(uri).port}`]).toString();
    const match = /pid=(\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface BenchStores {
  mongo: RunningStore;
  nats: RunningStore;
  keys: { publicKey: string; privateKey: string };
  /** Database name prefix and NATS subject prefix of this run (pass both to `startSystem`). */
  dbPrefix: string;
  natsPrefix: string;
  /** Set once the system runs, so the clean-up stops it first. */
  stopSystem?: () => Promise<void>;
  /** Stops the system, deletes the run's streams and the named services' databases, stops the stores. Once. */
  cleanUp: () => Promise<void>;
}

export async function startBenchStores(label: string, databases: readonly string[]): Promise<BenchStores> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `binzip-${label}-`));
  const mongo = await startMongo({ persistent: false, dataDir });
  const nats = await ensureNats({ dataDir });
  const dbPrefix = `${label}${Date.now().toString(36)}_`;
  const stores: BenchStores = {
    mongo,
    nats,
    keys: generateDevKeyPair(),
    dbPrefix,
    natsPrefix: dbPrefix.replace(/_/g, ''),
    cleanUp: onceOrInterrupted(async () => {
      await stores.stopSystem?.();
      const bus = await EventBus.connect({ url: nats.uri, prefix: stores.natsPrefix, name: 'bench-cleanup', logger: createLogger('bench', 'silent') });
      await bus.deleteStreams();
      await bus.close();
      for (const database of databases) {
        const connection = await connectMongo(mongo.uri, `${dbPrefix}${database}`);
        await connection.dropDatabase();
        await connection.close();
      }
      await nats.stop();
      await mongo.stop();
    }),
  };
  return stores;
}

export interface HousesSystemOptions {
  instances: number;
  /** Settings besides `LOG_LEVEL=error`. */
  env?: NodeJS.ProcessEnv;
  /** Node flags of the gateway and every houses process. */
  nodeArgs?: readonly string[];
}

/**
 * A gateway in front of `instances` houses processes on the bench's stores (what bench:system and bench:idle
 * measure); the clean-up stops it.
 */
export async function startHousesSystem(stores: BenchStores, options: HousesSystemOptions): Promise<RunningSystem> {
  const nodeArgs = options.nodeArgs ?? [];
  return startSystem({
    mongoUri: stores.mongo.uri,
    natsUrl: stores.nats.uri,
    publicKey: stores.keys.publicKey,
    privateKey: stores.keys.privateKey,
    services: ['houses'],
    instances: { houses: options.instances },
    dbPrefix: stores.dbPrefix,
    natsPrefix: stores.natsPrefix,
    env: { LOG_LEVEL: 'error', ...options.env },
    // A busy machine may take longer than the default 30 s to start a process.
    readyTimeoutMs: 120_000,
    ...(nodeArgs.length > 0 ? { nodeArgs: [...nodeArgs] } : {}),
  });
}
