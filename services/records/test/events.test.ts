import { EventBus, createLogger, startUserProjection, type OutboxRelay, type RecordCommentCreatedV1, type RunningConsumer } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { bearer, connectTestDb, dropTestDb, eventually, isolatedNames, publishUserSnapshot, testEnv, userSnapshot } from '../../../test/support';
import { buildApp } from '../src/app';
import { startCommentRelay } from '../src/events/relay';
import { commentModel } from '../src/models/comment';
import { initModels, recordsModels } from '../src/models';
import { admin, member, probeRecordComments } from './helpers';

const logger = createLogger('test', 'silent');
const names = isolatedNames('recordsevents');
let connection: Connection;
let bus: EventBus;
let relay: OutboxRelay;
let users: RunningConsumer;
let app: Express;
const received: RecordCommentCreatedV1[] = [];
let probe: RunningConsumer;

beforeAll(async () => {
  connection = await connectTestDb(names.db);
  await initModels(recordsModels(connection));
  bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'records-test', logger });
  users = await startUserProjection({ bus, connection, service: 'records', logger });
  relay = await startCommentRelay({ bus, connection, logger, intervalMs: 60_000 });
  app = buildApp({ connection, logger, publicKey: testEnv().publicKey, onEventsPending: () => void relay.kick() });
  probe = await probeRecordComments(bus, received);
});

afterAll(async () => {
  await probe?.stop();
  await relay?.stop();
  await users?.stop();
  await bus?.deleteStreams();
  await bus?.close();
  await dropTestDb(connection);
});

test('accounts snapshots over NATS feed the projection: reviewers and nicknames follow', async () => {
  await publishUserSnapshot(bus, userSnapshot(101, '웹리드', admin('WEB')));
  await publishUserSnapshot(bus, userSnapshot(102, '웹리뷰어', admin('WEB')));
  await publishUserSnapshot(bus, userSnapshot(103, '서버', admin('SERVER')));
  await publishUserSnapshot(bus, userSnapshot(104, '댓글러', member));
  const projected = recordsModels(connection).users;
  await eventually(async () => (await projected.countDocuments({ _id: { $in: [101, 102, 103, 104] } })) === 4, 10_000);

  const lead = bearer({ userId: 101, authority: 'ADMIN', userType: 'WEB' });
  const created = await request(app)
    .post('/api/v1/record')
    .set('Authorization', lead)
    .send({ title: '이벤트', content: '본문', part: 'web', type: 'retro', category: 'retrospection' });
  expect(created.status).toBe(200);
  const view = await request(app).get(`/api/v1/record/review/${created.body.data}`).set('Authorization', lead);
  expect(view.body.data.reviewers).toEqual([{ status: 'wait', nick_name: '웹리뷰어' }]);
  expect(view.body.data.nick_name).toBe('웹리드');
});

test('a saved comment is published as records.comment.created through the outbox', async () => {
  const lead = bearer({ userId: 101, authority: 'ADMIN', userType: 'WEB' });
  const reviewerAuth = bearer({ userId: 102, authority: 'ADMIN', userType: 'WEB' });
  const commenter = bearer({ userId: 104 });
  const recordId = (
    await request(app)
      .post('/api/v1/record')
      .set('Authorization', lead)
      .send({ title: '알림 글', content: '본문', part: 'web', type: 'odori', category: 'culture' })
  ).body.data as number;
  await request(app).post('/api/v1/record_review').set('Authorization', reviewerAuth).send({ record_id: recordId, content: 'ok', status: 'approve' });

  const top = (
    await request(app).post('/api/v1/record_comment').set('Authorization', commenter).send({ record_id: recordId, parent_id: null, content: '첫 댓글' })
  ).body.data as number;
  const reply = (await request(app).post('/api/v1/record_comment').set('Authorization', lead).send({ record_id: recordId, parent_id: top, content: '답글' }))
    .body.data as number;

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
  await eventually(
    async () => (await commentModel(connection).countDocuments({ _id: { $in: [top, reply] }, 'pendingEvents.0': { $exists: true } })) === 0,
    5_000,
  );
});
