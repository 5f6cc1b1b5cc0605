import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus, createLogger, type OutboxRelay, type RecordCommentCreatedV1, type RunningConsumer } from '@binzip/shared';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { startNatsServer } from '../../../scripts/lib/nats';
import { bearer, connectTestDb, dropTestDb, eventually, isolatedNames, testEnv } from '../../../test/support';
import { buildApp } from '../src/app';
import { startCommentRelay } from '../src/events/relay';
import { commentModel } from '../src/models/comment';
import { initModels, recordsModels } from '../src/models';
import { probeRecordComments } from './helpers';

jest.setTimeout(60_000);

const logger = createLogger('test', 'silent');

test('a comment saved while NATS is down is published once NATS is back', async () => {
  const names = isolatedNames('recordsoutage');
  const nats = await startNatsServer({ storeDir: path.join(mkdtempSync(path.join(os.tmpdir(), 'records-outage-')), 'nats') });
  let connection: Connection | undefined;
  let bus: EventBus | undefined;
  let relay: OutboxRelay | undefined;
  let probe: RunningConsumer | undefined;
  try {
    connection = await connectTestDb(names.db);
    await initModels(recordsModels(connection));
    bus = await EventBus.connect({ url: nats.uri, prefix: names.natsPrefix, name: 'records-outage', logger });
    relay = await startCommentRelay({ bus, connection, logger, intervalMs: 300 });
    const activeRelay = relay;
    const app = buildApp({ connection, logger, publicKey: testEnv().publicKey, onEventsPending: () => void activeRelay.kick() });
    const received: RecordCommentCreatedV1[] = [];
    probe = await probeRecordComments(bus, received);

    // The only WEB admin: the record is approved at once and open to comments.
    const lead = bearer({ userId: 1, authority: 'ADMIN', userType: 'WEB' });
    const recordId = (
      await request(app)
        .post('/api/v1/record')
        .set('Authorization', lead)
        .send({ title: '정전', content: '본문', part: 'web', type: 'tech', category: 'issue' })
    ).body.data as number;

    await nats.stop();
    const saved = await request(app)
      .post('/api/v1/record_comment')
      .set('Authorization', bearer({ userId: 2 }))
      .send({ record_id: recordId, parent_id: null, content: '정전 중 댓글' });
    expect(saved.status).toBe(200);
    const commentId = saved.body.data as number;
    const stored = await commentModel(connection).findById(commentId).lean();
    expect(stored?.pendingEvents).toHaveLength(1);

    await nats.restart();
    const event = await eventually(() => received.find((e) => e.commentId === commentId), 30_000, 200);
    expect(event).toMatchObject({ recordId, recordAuthorId: 1, commenterId: 2, content: '정전 중 댓글', parentCommentAuthorId: null });
    const activeConnection = connection;
    await eventually(async () => ((await commentModel(activeConnection).findById(commentId).lean())?.pendingEvents.length ?? 1) === 0, 10_000);
  } finally {
    await probe?.stop().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await nats.stop();
    await dropTestDb(connection);
  }
});
