import { connect } from 'nats';

/**
 * Every test names its streams after this run (isolatedNames); a test file that crashed before its own
 * clean-up would leave them on a shared NATS, so whatever of this run is left goes here.
 */
async function deleteThisRunsStreams(): Promise<void> {
  const run = process.env.BINZIP_TEST_RUN?.toUpperCase();
  const url = process.env.NATS_URL;
  if (!run || !url) return;
  const connection = await connect({ servers: url, timeout: 3_000 }).catch(() => undefined);
  if (!connection) return;
  try {
    const manager = await connection.jetstreamManager();
    const leftovers: string[] = [];
    for await (const stream of manager.streams.list()) if (stream.config.name.includes(run)) leftovers.push(stream.config.name);
    for (const name of leftovers) await manager.streams.delete(name).catch(() => undefined);
  } finally {
    await connection.close();
  }
}

export default async function globalTeardown(): Promise<void> {
  await deleteThisRunsStreams();
  for (const store of globalThis.__BINZIP_STORES__ ?? []) await store.stop();
}
