/**
 * `npm run containers:up` / `npm run containers:down`: the whole system in containers on podman, from the
 * project's docker-compose.yml (docs/containers.md). Takes the settings `npm start` takes (PORT, DATA_DIR,
 * ADMIN_BOOTSTRAP, TRUST_PROXY, VERIFICATION_CODE_DIGITS, CEILING_*, RATE_LIMIT_*, REPLICAS, HOUSES_INSTANCES, …) from
 * the environment, and NATS_NODES (1 or 3) of its own.
 *   npm run containers:up [-- --build]        builds what is missing (--build: every image again), starts, waits for /ready
 *   npm run containers:build [-- --build | --release <process>]   the images only (--release: that process's previous release)
 *   npm run containers:down [-- --volumes]    removes the containers and the network (--volumes: the store's data too)
 */
import { generateDevKeyPair } from '../shared/src/core/auth';
import {
  buildPreviousRelease,
  ContainersError,
  containersDown,
  containersSettings,
  containersUp,
  ensureImages,
  PROCESSES,
  type ProcessName,
} from './lib/containers';
import { devDataDir, loadOrCreateDevKeys } from './lib/system';

async function main(): Promise<void> {
  const [command, ...flags] = process.argv.slice(2);
  const log = (line: string) => console.log(`[containers] ${line}`);
  const dataDir = devDataDir();
  const settings = containersSettings(process.env, loadOrCreateDevKeys(dataDir, generateDevKeyPair), dataDir, log);
  if (command === 'up') {
    const started = Date.now();
    const { url, urls } = await containersUp(settings, { rebuild: flags.includes('--build') });
    log(`ready after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const { replicas, houses, natsNodes } = settings.scale;
    if (replicas > 1 || houses > 1 || natsNodes > 1)
      log(`copies: ${replicas} of every service, ${houses} of houses, ${urls.length} gateways, ${natsNodes} NATS nodes`);
    log(`gateway: ${url}  (GET ${url}/ready)`);
    for (const other of urls.slice(1)) log(`gateway: ${other}`);
    log(`SMS and e-mail codes (local senders) are written to ${dataDir}/outbox/messages.jsonl`);
    log('stop with: npm run containers:down');
  } else if (command === 'build') {
    // The images only (what `up` builds when missing); `-- --release <process>`: that process's previous tagged
    // release too, as <prefix>/<process>:<its version> (the container test's upgrade starts from it).
    const started = Date.now();
    const release = flags.indexOf('--release');
    if (release >= 0) {
      const name = flags[release + 1] as ProcessName;
      if (!PROCESSES.includes(name)) throw new ContainersError(`--release takes a process name (${PROCESSES.join(', ')})`);
      const image = await buildPreviousRelease(settings, name);
      log(`${image} built`);
    } else {
      await ensureImages(settings, { rebuild: flags.includes('--build') });
    }
    log(`images ready after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } else if (command === 'down') {
    await containersDown(settings, { volumes: flags.includes('--volumes') });
    log(`project ${settings.project} removed`);
  } else {
    throw new ContainersError('usage: tsx scripts/containers.ts up [--build] | build [--build | --release <process>] | down [--volumes]');
  }
}

main().catch((err: Error) => {
  console.error(err instanceof ContainersError ? `[containers] ${err.message}` : `[containers] failed: ${err.stack ?? err.message}`);
  process.exit(1);
});
