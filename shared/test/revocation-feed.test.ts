import type { Connection } from 'mongoose';
import {
  REVOCATION_FEED_WINDOW_MS,
  followRevocationFeed,
  projectedSuspension,
  projectedUserModel,
  revokedSessions,
  type Logger,
  type RevocationFeed,
} from '../src';
import { connectTestDb, dropTestDb, isolatedNames } from '../../test/support';

/** The follower of accounts' revocation feed (issue 34), fed by a reader of the test's own (no HTTP, no accounts). */
let connection: Connection;
beforeAll(async () => {
  connection = await connectTestDb(isolatedNames('sharedrevfeed').db);
});
afterAll(async () => dropTestDb(connection));

const lines: Array<[string, string]> = [];
const logger = {
  warn: (message: string) => lines.push(['warn', message]),
  info: (message: string) => lines.push(['info', message]),
} as unknown as Logger;
const snapshot = (id: number, status: 'ACTIVE' | 'SUSPENDED', version: number) => ({
  id,
  userName: `feed${id}`,
  nick_name: `피드${id}`,
  userType: 'NONE' as const,
  authority: 'USER' as const,
  status,
  version,
});

it('revokes the sessions it reads, applies newer snapshots only, starts where the last answer said, and rides out failures', async () => {
  const start = Date.parse('2026-11-27T10:00:00Z');
  const asked: Date[] = [];
  const answers: Array<RevocationFeed | Error> = [
    {
      next: '2026-11-27T09:59:30.000Z',
      sessions: [{ userId: 7001, sessionIds: ['feed-sid-1'], at: '2026-11-27T09:59:59.000Z' }],
      users: [snapshot(7001, 'SUSPENDED', 3)],
    },
    new Error('accounts away'),
    new Error('accounts away'),
    { next: '2026-11-27T10:00:10.000Z', sessions: [], users: [snapshot(7001, 'ACTIVE', 2)] },
  ];
  const follower = followRevocationFeed({
    read: async (since) => {
      asked.push(since);
      const answer = answers.shift() ?? { next: since.toISOString(), sessions: [], users: [] };
      if (answer instanceof Error) throw answer;
      return answer;
    },
    users: projectedUserModel(connection),
    intervalMs: 60_000,
    logger,
    now: () => start,
  });
  for (let i = 0; i < 3; i++) await follower.readOnce();
  await follower.stop();

  expect(asked.map((d) => d.toISOString())).toEqual([
    new Date(start - REVOCATION_FEED_WINDOW_MS).toISOString(),
    '2026-11-27T09:59:30.000Z',
    '2026-11-27T09:59:30.000Z',
    '2026-11-27T09:59:30.000Z',
  ]);
  expect(revokedSessions.has('feed-sid-1')).toBe(true);
  // The older snapshot (version 2) read after version 3 changes nothing: the suspension stands.
  expect(await projectedSuspension(connection)(7001)).toBe('SUSPENDED');
  // Failing reads are said once, and their end once.
  expect(lines).toEqual([
    ['warn', 'revocation feed unreadable: revocations now wait for NATS'],
    ['info', 'revocation feed read again'],
  ]);
});
