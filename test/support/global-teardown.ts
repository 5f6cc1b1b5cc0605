import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { findUnservedQueries, QUERY_SHAPES_DIR_ENV, readRecordedShapes, type UnservedQuery } from '../../shared/src/store/query-shapes';
import { QUERY_SCAN_ALLOWED } from './query-allowlist';

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
    const manager = await jetstreamManager(connection);
    const leftovers: string[] = [];
    for await (const stream of manager.streams.list()) if (stream.config.name.includes(run)) leftovers.push(stream.config.name);
    for (const name of leftovers) await manager.streams.delete(name).catch(() => undefined);
  } finally {
    await connection.close();
  }
}

const describe = (q: UnservedQuery) => `${q.collection} ${q.command} filter ${JSON.stringify(q.branch)} sort ${JSON.stringify(q.sort)}`;

/**
 * Every query a request sent during the run must be served by a declared index; one that would scan fails
 * the run. Other queries (start-up, the tests' own look-ups) that would scan are listed as a notice.
 */
function checkQueryShapes(): void {
  const dir = process.env[QUERY_SHAPES_DIR_ENV];
  if (!dir) return;
  const { shapes, declarations } = readRecordedShapes(dir);
  const unserved = findUnservedQueries(shapes, declarations, QUERY_SCAN_ALLOWED);
  const fromRequests = unserved.filter((q) => q.origin === 'request');
  const others = unserved.filter((q) => q.origin !== 'request');
  if (others.length > 0 && process.env.BINZIP_QUERY_SHAPES_VERBOSE) {
    console.warn(`queries outside requests that no index serves (not failing the run):\n  ${others.map(describe).join('\n  ')}`);
  }
  if (fromRequests.length > 0) {
    throw new Error(
      `queries no declared index serves (add the index to the schema, or allow-list it in test/support/query-allowlist.ts with a reason):\n  ${fromRequests.map(describe).join('\n  ')}`,
    );
  }
}

export default async function globalTeardown(): Promise<void> {
  await deleteThisRunsStreams();
  for (const store of globalThis.__BINZIP_STORES__ ?? []) await store.stop();
  checkQueryShapes();
}
