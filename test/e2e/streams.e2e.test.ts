/**
 * Issue 36: a process ensures the streams it uses, learnt from its service's declaration, and no others. Each
 * producer's stream is declared beside its events (@binzip/events), so records alone creates the runtime's own
 * streams, its own and the audit trail's it publishes to, and never community's or houses'; notifications, which
 * publishes nothing, creates the streams of the events it consumes. The built processes (run `npx tsc -b` first)
 * on a fresh prefix of the run's broker.
 */
import { startE2eSystem, type E2eSystem } from '../support/e2e';

/** The prefix's streams on the broker, by their names without the prefix. */
async function streamsOf(e2e: E2eSystem): Promise<string[]> {
  const bus = await e2e.bus();
  const prefix = bus.streamName('');
  const names: string[] = [];
  for await (const name of bus.manager.streams.names()) if (name.startsWith(prefix)) names.push(name.slice(prefix.length));
  return names.sort();
}

test('records alone creates the runtime streams, RECORDS and AUDIT; COMMUNITY and HOUSES belong to others', async () => {
  const e2e = await startE2eSystem('streamsrec', { services: ['records'], env: { LOG_LEVEL: 'warn' } });
  try {
    expect(await streamsOf(e2e)).toEqual(['ACCOUNTS', 'AUDIT', 'DEAD_LETTERS', 'RECORDS', 'SESSIONS']);
  } finally {
    await e2e.stop();
  }
}, 90_000);

test('notifications alone creates the streams of the events it consumes, and not the audit trail it never reads', async () => {
  const e2e = await startE2eSystem('streamsnot', { services: ['notifications'], env: { LOG_LEVEL: 'warn' } });
  try {
    expect(await streamsOf(e2e)).toEqual(['ACCOUNTS', 'COMMUNITY', 'DEAD_LETTERS', 'HOUSES', 'RECORDS', 'SESSIONS']);
  } finally {
    await e2e.stop();
  }
}, 90_000);
