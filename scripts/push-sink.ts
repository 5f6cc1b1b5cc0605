/**
 * The local push service for development (scripts/lib/push-sink.ts): prints the settings that make the
 * notifications service send to it and a subscription to register, then logs every push it receives, decrypted.
 *   npm run push:sink                 (Ctrl-C stops it)
 *   npm run push:sink -- --port 7443  a fixed port
 */
import { parseArgs } from 'node:util';
import { startPushSink } from './lib/push-sink';

const { values } = parseArgs({ options: { port: { type: 'string' } } });
async function main(): Promise<void> {
  const sink = await startPushSink({ port: values.port ? Number(values.port) : undefined, log: (line) => console.log(line) });
  console.log(`push sink on ${sink.url}; for the notifications service:`);
  console.log(`  PUSH_ENDPOINT_HOSTS=127.0.0.1 PUSH_CA_FILE=${sink.caFile} (and the VAPID_* lines of npm run keys)`);
  console.log('a subscription to POST to /api/v1/notifications/push/subscriptions (as a member):');
  console.log(`  ${JSON.stringify(sink.subscribe())}`);
  const stop = () => void sink.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
