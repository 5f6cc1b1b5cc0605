/**
 * What a houses replica costs with no request at all (issue 37 item 5): a gateway in front of one, then of three
 * houses processes, on throw-away stores with 1,000 listings, measured in turn with each idle task slowed to once
 * in ten minutes by its setting, so the difference names that task's cost. Per configuration: CPU milliseconds a
 * second of each houses process, the gateway, the store (the Java stand-in) and the broker (nats-server), from
 * `/proc/<pid>/stat` over `--seconds` (after `--settle` seconds for start-up work to end).
 *
 * Then `--probes` readiness probes of the first instance, one after the other: what one probe costs it and the store.
 *
 *   npm run bench:idle -- [--seconds 30] [--settle 8] [--count 1000] [--probes 500]
 *
 * Asserts nothing; its figures are in docs/benchmarks.md, issue 37 item 5.
 */
import os from 'node:os';
import { connectMongo } from '../shared/src';
import { cpuMs, listenerPid, numberArg as arg, startBenchStores, startHousesSystem } from './lib/bench-stores';
import { seedHouses } from './seed-houses';

/** Ten minutes: a task slowed to this runs at most once in a measurement. */
const SLOWED = '600000';

interface Configuration {
  label: string;
  instances: number;
  env: NodeJS.ProcessEnv;
}

const CONFIGURATIONS: Configuration[] = [
  { label: 'as deployed', instances: 1, env: {} },
  { label: 'as deployed', instances: 3, env: {} },
  { label: 'outbox relay slowed (OUTBOX_INTERVAL_MS)', instances: 3, env: { OUTBOX_INTERVAL_MS: SLOWED } },
  { label: 'readiness probes slowed (HEALTH_INTERVAL_MS)', instances: 3, env: { HEALTH_INTERVAL_MS: SLOWED } },
  { label: 'metrics off (METRICS_ENABLED=false)', instances: 3, env: { METRICS_ENABLED: 'false' } },
  { label: 'all three', instances: 3, env: { OUTBOX_INTERVAL_MS: SLOWED, HEALTH_INTERVAL_MS: SLOWED, METRICS_ENABLED: 'false' } },
];

/** The pid listening on a local port (`ss`), or undefined. */
const perSecond = (spentMs: number, seconds: number) => (spentMs / seconds).toFixed(1);

async function main(): Promise<void> {
  const seconds = arg('seconds', 30);
  const settle = arg('settle', 8);
  const stores = await startBenchStores('idle', ['houses']);
  const { mongo, nats, dbPrefix } = stores;
  try {
    const connection = await connectMongo(mongo.uri, `${dbPrefix}houses`);
    await seedHouses(connection, { count: arg('count', 1_000) }).finally(() => connection.close());
    const storePid = listenerPid(mongo.uri);
    const natsPid = listenerPid(nats.uri);
    console.log(
      `${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} at the start; ${seconds} s per configuration`,
    );
    console.log('\n| configuration | houses | CPU ms/s each houses process | houses summed | gateway | store | broker | CPU of one probe |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const configuration of CONFIGURATIONS) {
      const system = await startHousesSystem(stores, { instances: configuration.instances, env: configuration.env });
      stores.stopSystem = () => system.stop();
      try {
        await new Promise((resolve) => setTimeout(resolve, settle * 1000));
        const houses = (system.services.houses ?? []).map((h) => h.child.pid);
        const sample = () => ({
          houses: houses.map(cpuMs),
          gateway: cpuMs(system.gateway.child.pid),
          store: cpuMs(storePid),
          broker: cpuMs(natsPid),
        });
        const before = sample();
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        const after = sample();
        const each = after.houses.map((ms, i) => ms - before.houses[i]);
        // What one readiness probe costs the instance and the store: `--probes` of them, one after the other.
        const probes = arg('probes', 500);
        const probed = system.services.houses?.[0];
        const beforeProbes = sample();
        for (let i = 0; i < probes && probed; i++) await (await fetch(`${probed.url}/ready`)).arrayBuffer();
        const afterProbes = sample();
        const probeCost = `one /ready: houses ${((afterProbes.houses[0] - beforeProbes.houses[0]) / probes).toFixed(2)} ms, store ${((afterProbes.store - beforeProbes.store) / probes).toFixed(2)} ms`;
        console.log(
          `| ${configuration.label} | ${configuration.instances} | ${each.map((ms) => perSecond(ms, seconds)).join(' / ')} ` +
            `| ${perSecond(
              each.reduce((sum, ms) => sum + ms, 0),
              seconds,
            )} | ${perSecond(after.gateway - before.gateway, seconds)} | ${perSecond(after.store - before.store, seconds)} ` +
            `| ${perSecond(after.broker - before.broker, seconds)} | ${probeCost} |`,
        );
      } finally {
        await system.stop();
        stores.stopSystem = undefined;
      }
    }
    console.log(
      `load average ${os
        .loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')} at the end`,
    );
  } finally {
    await stores.cleanUp();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
