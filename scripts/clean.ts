/**
 * `npm run clean`: forgets a data folder of `npm start` (`DATA_DIR`, default `.data`) and everything it holds on
 * NATS. Its JetStream streams (under the folder's own prefix, `<data>/nats-prefix`) are deleted first, with
 * their consumers, so the byte ceilings they reserve on the broker are free again; then the folder itself.
 * Stop `npm start` first.
 *
 * Env: DATA_DIR, NATS_URL (default nats://127.0.0.1:4222), NATS_PREFIX (overrides the folder's prefix).
 * `--keep-data` deletes only the streams. Exits non-zero, leaving the folder (and so its prefix) in place, when
 * the streams live on a broker that cannot be reached: run it again once NATS is back.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, EventBus } from '../shared/src';
import { portOpen } from './lib/server-process';
import { devDataDir, devNatsPrefix } from './lib/system';

const log = (line: string) => console.log(`[clean] ${line}`);

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'keep-data': { type: 'boolean', default: false } } });
  const dataDir = devDataDir();
  const prefix = devNatsPrefix(dataDir, { create: false });
  const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  if (!prefix) {
    log(`${dataDir} has no NATS prefix: no streams to delete`);
  } else {
    const first = new URL(natsUrl.split(',')[0].trim());
    const reachable = await portOpen(first.hostname, Number(first.port || 4222));
    if (reachable) {
      const bus = await EventBus.connect({ url: natsUrl, prefix, name: 'clean', logger: createLogger('clean', 'silent') });
      try {
        const deleted = await bus.deleteStreams();
        log(deleted.length > 0 ? `deleted streams ${deleted.join(', ')} from ${natsUrl}` : `no streams of prefix ${prefix} on ${natsUrl}`);
      } finally {
        await bus.close();
      }
    } else if (existsSync(path.join(dataDir, 'nats')) && !process.env.NATS_URL) {
      // `npm start` ran its own NATS with its store inside the folder: the streams go with the folder.
      log(`NATS is not running; the streams are in ${path.join(dataDir, 'nats')} and go with the folder`);
    } else {
      console.error(`[clean] NATS at ${natsUrl} is unreachable: the streams of prefix ${prefix} stay, and so does ${dataDir}; run again once NATS is back`);
      return 1;
    }
  }
  if (values['keep-data']) return 0;
  if (existsSync(dataDir)) {
    rmSync(dataDir, { recursive: true, force: true });
    log(`removed ${dataDir}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`[clean] failed: ${err.message}`);
    process.exit(1);
  },
);
