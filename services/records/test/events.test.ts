import { createLogger, startOutboxRelay, userProjection, type EventBus, type OutboxRelay, type RunningConsumer } from '@binzip/shared';
import { type RecordCommentCreatedV1 } from '@binzip/events';
import request from 'supertest';
import { bearer, eventually, publishUserSnapshot, userSnapshot } from '../../../test/support';
import { recordsOutbox } from '../src/events';
import { probeRecordComments, startRecordsHarness, type RecordsHarness } from './helpers';

const logger = createLogger('test', 'silent');
let h: RecordsHarness;
let bus: EventBus;
let relay: OutboxRelay;
let users: RunningConsumer;
const received: RecordCommentCreatedV1[] = [];
let probe: RunningConsumer;

const webAdmin = { authority: 'ADMIN', userType: 'WEB' } as const;
const serverAdmin = { authority: 'ADMIN', userType: 'SERVER' } as const;

beforeAll(async () => {
  h = await startRecordsHarness('recordsevents');
  bus = await h.bus();
  users = await bus.consume(userProjection({ bus, connection: h.connection, service: 'records' }));
  // A long timer: the test kicks the relay itself, as the app's outbox kick does in main.ts.
  relay = startOutboxRelay(bus, recordsOutbox(h.models), { logger, intervalMs: 60_000 });
  probe = await probeRecordComments(bus, received);
});

afterAll(async () => {
  await probe?.stop();
  await relay?.stop();
  await users?.stop();
  await h?.close();
});

test('accounts snapshots over NATS feed the projection: reviewers and nicknames follow', async () => {
  await publishUserSnapshot(bus, userSnapshot(101, '웹리드', webAdmin));
  await publishUserSnapshot(bus, userSnapshot(102, '웹리뷰어', webAdmin));
  await publishUserSnapshot(bus, userSnapshot(103, '서버', serverAdmin));
  await publishUserSnapshot(bus, userSnapshot(104, '댓글러'));
  const projected = h.models.users;
  await eventually(async () => (await projected.countDocuments({ _id: { $in: [101, 102, 103, 104] } })) === 4, 10_000);

  const lead = bearer({ userId: 101, authority: 'ADMIN', userType: 'WEB' });
  const created = await request(h.app)
    .post('/api/v1/record')
    .set('Authorization', lead)
    .send({ title: '이벤트', content: '본문', part: 'web', type: 'retro', category: 'retrospection' });
  expect(created.status).toBe(200);
  const view = await request(h.app).get(`/api/v1/record/review/${created.body.data}`).set('Authorization', lead);
  expect(view.body.data.reviewers).toEqual([{ status: 'wait', nick_name: '웹리뷰어' }]);
  expect(view.body.data.nick_name).toBe('웹리드');
});

test('a saved comment is published as records.comment.created through the outbox', async () => {
  const lead = bearer({ userId: 101, authority: 'ADMIN', userType: 'WEB' });
  const reviewerAuth = bearer({ userId: 102, authority: 'ADMIN', userType: 'WEB' });
  const commenter = bearer({ userId: 104 });
  const recordId = (
    await request(h.app)
      .post('/api/v1/record')
      .set('Authorization', lead)
      .send({ title: '알림 글', content: '본문', part: 'web', type: 'odori', category: 'culture' })
  ).body.data as number;
  await request(h.app).post('/api/v1/record_review').set('Authorization', reviewerAuth).send({ record_id: recordId, content: 'ok', status: 'approve' });

  const kicksBefore = h.outboxKicks.count;
  const top = (
    await request(h.app).post('/api/v1/record_comment').set('Authorization', commenter).send({ record_id: recordId, parent_id: null, content: '첫 댓글' })
  ).body.data as number;
  const reply = (await request(h.app).post('/api/v1/record_comment').set('Authorization', lead).send({ record_id: recordId, parent_id: top, content: '답글' }))
    .body.data as number;

  // Both writes stored an event and kicked the outbox; the relay publishes them on its kick.
  expect(h.outboxKicks.count).toBe(kicksBefore + 2);
  await relay.kick();
  const events = await eventually(() => {
    const mine = received.filter((e) => e.recordId === recordId);
    return mine.length >= 2 ? mine : undefined;
  }, 10_000);
  const byComment = new Map(events.map((e) => [e.commentId, e]));
  expect(byComment.get(top)).toMatchObject({
    v: 1,
    recordId,
    recordTitle: '알림 글',
    recordAuthorId: 101,
    parentCommentAuthorId: null,
    commentId: top,
    commenterId: 104,
    commenterNickName: '댓글러',
    content: '첫 댓글',
  });
  expect(byComment.get(reply)).toMatchObject({ parentCommentAuthorId: 104, commenterId: 101, commenterNickName: '웹리드', content: '답글' });
  // Published events leave the outbox.
  await eventually(async () => (await h.models.comments.countDocuments({ _id: { $in: [top, reply] }, 'pendingEvents.0': { $exists: true } })) === 0, 5_000);
});
