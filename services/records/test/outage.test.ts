import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus, createLogger, startOutboxRelay, type OutboxRelay, type RunningConsumer } from '@binzip/shared';
import { type RecordCommentCreatedV1 } from '@binzip/events';
import request from 'supertest';
import { startNatsServer } from '../../../scripts/lib/nats';
import { eventually } from '../../../test/support';
import { addAdmin, addMember } from '../../../test/support/service';
import { recordsOutbox } from '../src/events';
import { probeRecordComments, startRecordsHarness, type RecordsHarness } from './helpers';

jest.setTimeout(60_000);

const logger = createLogger('test', 'silent');

test('a comment saved while NATS is down is published once NATS is back', async () => {
  const nats = await startNatsServer({ storeDir: path.join(mkdtempSync(path.join(os.tmpdir(), 'records-outage-')), 'nats') });
  let h: RecordsHarness | undefined;
  let bus: EventBus | undefined;
  let relay: OutboxRelay | undefined;
  let probe: RunningConsumer | undefined;
  try {
    h = await startRecordsHarness('recordsoutage');
    // A private NATS server this test can stop; the harness's own bus is the run's shared one.
    bus = await EventBus.connect({ url: nats.uri, prefix: h.names.natsPrefix, name: 'records-outage', logger });
    // The relay's timer is what publishes once NATS is back (the kick at write time found it down).
    relay = startOutboxRelay(bus, recordsOutbox(h.models), { logger, intervalMs: 300 });
    const received: RecordCommentCreatedV1[] = [];
    probe = await probeRecordComments(bus, received);

    // The only WEB admin: the record is approved at once and open to comments.
    const lead = await addAdmin(h.connection, '리드', { id: 1, userType: 'WEB' });
    const commenter = await addMember(h.connection, '댓글러', { id: 2 });
    const recordId = (
      await request(h.app)
        .post('/api/v1/record')
        .set('Authorization', lead.token)
        .send({ title: '정전', content: '본문', part: 'web', type: 'tech', category: 'issue' })
    ).body.data as number;

    await nats.stop();
    const saved = await request(h.app)
      .post('/api/v1/record_comment')
      .set('Authorization', commenter.token)
      .send({ record_id: recordId, parent_id: null, content: '정전 중 댓글' });
    expect(saved.status).toBe(200);
    const commentId = saved.body.data as number;
    const comments = h.models.comments;
    const stored = await comments.findById(commentId).lean();
    expect(stored?.pendingEvents).toHaveLength(1);

    await nats.restart();
    const event = await eventually(() => received.find((e) => e.commentId === commentId), 30_000, 200);
    expect(event).toMatchObject({ recordId, recordAuthorId: 1, commenterId: 2, content: '정전 중 댓글', parentCommentAuthorId: null });
    await eventually(async () => ((await comments.findById(commentId).lean())?.pendingEvents.length ?? 1) === 0, 10_000);
  } finally {
    await probe?.stop().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await nats.stop();
    await h?.close();
  }
});
