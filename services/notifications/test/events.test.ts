import { accountsStream, EventBus, projectedUserModel, startConsumers, userProjection, type RunningConsumer } from '@binzip/shared';
import { communityCommentCreated, recordCommentCreated, type CommunityCommentCreatedV1, type RecordCommentCreatedV1 } from '@binzip/events';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { bearer, connectTestDb, dropTestDb, eventually, publishUserSnapshot, userSnapshot } from '../../../test/support';
import { startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { notificationsConsumers } from '../src/events';
import { initModels, notificationModel, notificationsModels, type NotificationsModels } from '../src/models';

let h: ServiceHarness<NotificationsModels>;
let connection: Connection;
let bus: EventBus;
let app: Express;
let comments: RunningConsumer;
let users: RunningConsumer | undefined;

const AUTHOR = 201;
const COMMENTER = 202;
const PARENT_AUTHOR = 203;
let seq = 5_000;
const next = () => ++seq;

function boardEvent(overrides: Partial<CommunityCommentCreatedV1> = {}): CommunityCommentCreatedV1 {
  const id = next();
  return {
    v: 1,
    eventId: `board-comment-${id}`,
    boardId: 40,
    boardTitle: '시골집 후기',
    boardAuthorId: AUTHOR,
    commentId: id,
    commenterId: COMMENTER,
    commenterNickName: 'commenterAtWrite',
    content: `좋은 글 ${id}`,
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

function recordEvent(overrides: Partial<RecordCommentCreatedV1> = {}): RecordCommentCreatedV1 {
  const id = next();
  return {
    v: 1,
    eventId: `record-comment-${id}`,
    recordId: 77,
    recordTitle: '장애 회고',
    recordAuthorId: AUTHOR,
    parentCommentAuthorId: null,
    commentId: id,
    commenterId: COMMENTER,
    commenterNickName: 'commenterAtWrite',
    content: `기록 댓글 ${id}`,
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

const publishBoard = (event: CommunityCommentCreatedV1, msgId = event.eventId) => bus.publish(communityCommentCreated.subject, event, msgId);
const publishRecord = (event: RecordCommentCreatedV1, msgId = event.eventId) => bus.publish(recordCommentCreated.subject, event, msgId);

const publishUser = (id: number, nickName: string, version: number) => publishUserSnapshot(bus, userSnapshot(id, nickName, { version }));

const recipientsOfComment = async (kind: 'board' | 'record', commentId: number) =>
  (await notificationModel(connection).find({ kind, commentId }).sort({ recipientId: 1 }).lean().exec()).map((n) => n.recipientId);

/** Waits until a comment's notifications exist; events on one subject are handled in order, so later ones imply earlier ones. */
const arrived = (kind: 'board' | 'record', commentId: number, count = 1) =>
  eventually(async () => (await recipientsOfComment(kind, commentId)).length >= count, 5_000);

beforeAll(async () => {
  h = await startServiceHarness('notifevents', { models: notificationsModels, initModels, buildApp });
  ({ connection, app } = h);
  bus = await h.bus();
  await bus.ensureStream(accountsStream);
  await publishUser(AUTHOR, 'authorV1', 1);
  await publishUser(AUTHOR, 'author', 2);
  await publishUser(COMMENTER, 'commenter', 1);
  users = await bus.consume(userProjection({ bus, connection, service: 'notifications' }));
  comments = await startConsumers(bus, notificationsConsumers(h.ctx, { EVENT_MAX_DELIVER: 5, EVENT_BACKOFF_MS: [1_000, 2_000] }));
});

afterAll(async () => {
  await comments?.stop();
  await users?.stop();
  await h.close();
});

it('turns a board comment event into a notification the board author can list', async () => {
  const event = boardEvent();
  await publishBoard(event);
  await arrived('board', event.commentId);
  const res = await request(app)
    .get('/api/v1/notifications')
    .set('Authorization', bearer({ userId: AUTHOR }));
  expect(res.status).toBe(200);
  expect(res.body.data.notifications.content[0]).toMatchObject({
    nick_name: 'author',
    board_id: 40,
    board_title: '시골집 후기',
    status: false,
    comment: event.content,
    comment_user: 'commenter',
    type: 'board',
  });
  expect(res.body.data.nextId).toBe(res.body.data.notifications.content[0].notification_id);
});

it('does not notify anyone of their own board comment', async () => {
  const own = boardEvent({ commenterId: AUTHOR });
  const marker = boardEvent();
  await publishBoard(own);
  await publishBoard(marker);
  await arrived('board', marker.commentId);
  expect(await recipientsOfComment('board', own.commentId)).toEqual([]);
});

it('notifies the record author and the parent comment author, once each, never the commenter', async () => {
  const reply = recordEvent({ parentCommentAuthorId: PARENT_AUTHOR });
  const replyToAuthor = recordEvent({ parentCommentAuthorId: AUTHOR });
  const authorReplies = recordEvent({ commenterId: AUTHOR, parentCommentAuthorId: PARENT_AUTHOR });
  const authorOnOwnRecord = recordEvent({ commenterId: AUTHOR });
  const marker = recordEvent();
  for (const event of [reply, replyToAuthor, authorReplies, authorOnOwnRecord, marker]) await publishRecord(event);
  await arrived('record', marker.commentId);
  expect(await recipientsOfComment('record', reply.commentId)).toEqual([AUTHOR, PARENT_AUTHOR]);
  expect(await recipientsOfComment('record', replyToAuthor.commentId)).toEqual([AUTHOR]);
  expect(await recipientsOfComment('record', authorReplies.commentId)).toEqual([PARENT_AUTHOR]);
  expect(await recipientsOfComment('record', authorOnOwnRecord.commentId)).toEqual([]);

  const res = await request(app)
    .get('/api/v1/notifications')
    .query({ size: '50' })
    .set('Authorization', bearer({ userId: PARENT_AUTHOR }));
  const items = res.body.data.notifications.content as Array<{ type: string; board_id: number; board_title: string }>;
  expect(items).toHaveLength(2);
  expect(items.every((n) => n.type === 'record' && n.board_id === 77 && n.board_title === '장애 회고')).toBe(true);
});

it('keeps one notification per comment and recipient when the same comment is published again', async () => {
  const event = boardEvent();
  await publishBoard(event, `${event.eventId}-first`);
  await publishBoard(event, `${event.eventId}-second`); // past JetStream's de-duplication: a real second delivery
  await publishBoard(event, `${event.eventId}-second`); // dropped by JetStream
  await publishRecord(recordEvent({ commentId: event.commentId, parentCommentAuthorId: AUTHOR })); // same id, other area
  const marker = boardEvent();
  await publishBoard(marker);
  await arrived('board', marker.commentId);
  await arrived('record', event.commentId);
  expect(await recipientsOfComment('board', event.commentId)).toEqual([AUTHOR]);
  expect(await recipientsOfComment('record', event.commentId)).toEqual([AUTHOR]);
});

it('terminates invalid payloads without redelivering them or holding back later events', async () => {
  await bus.jetstream.publish(bus.subject(communityCommentCreated.subject), new TextEncoder().encode('{"v":1, not json'), { msgID: `garbage-${next()}` });
  await publishBoard({ ...boardEvent(), v: 2 } as unknown as CommunityCommentCreatedV1);
  await publishBoard({ ...boardEvent(), boardAuthorId: -1 });
  await publishBoard({ ...boardEvent(), content: undefined } as unknown as CommunityCommentCreatedV1);
  const valid = boardEvent();
  await publishBoard(valid);
  await arrived('board', valid.commentId);

  const { manager } = bus;
  // Longer than the first redelivery delay (1 s here): a message that was not terminated would be redelivered by now.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const info = await manager.consumers.info(bus.streamName('COMMUNITY'), `${h.names.natsPrefix}_notifications-board-comments`);
  expect(info.num_ack_pending).toBe(0);
  expect(info.num_pending).toBe(0);
  expect(info.num_redelivered).toBe(0);
});

describe('user projection', () => {
  it('gives the latest nickname of the recipient and shows a later change', async () => {
    const res = await request(app)
      .get('/api/v1/notifications')
      .query({ size: '1' })
      .set('Authorization', bearer({ userId: AUTHOR }));
    expect(res.body.data.notifications.content[0].nick_name).toBe('author');
    await publishUser(AUTHOR, 'authorRenamed', 3);
    await eventually(async () => {
      const again = await request(app)
        .get('/api/v1/notifications')
        .query({ size: '1' })
        .set('Authorization', bearer({ userId: AUTHOR }));
      return again.body.data.notifications.content[0].nick_name === 'authorRenamed';
    });
  });

  it('is rebuilt from the last snapshot per user by a new instance with an empty database', async () => {
    await users?.stop();
    users = undefined;
    const fresh = await connectTestDb(`${h.names.db}_fresh`);
    let replacement: RunningConsumer | undefined;
    try {
      replacement = await bus.consume(userProjection({ bus, connection: fresh, service: 'notifications' }));
      const projected = projectedUserModel(fresh);
      await eventually(async () => (await projected.countDocuments().exec()) === 2);
      const author = await projected.findById(AUTHOR).lean().exec();
      expect(author).toMatchObject({ nickName: 'authorRenamed', version: 3 });
      expect((await projected.findById(COMMENTER).lean().exec())?.nickName).toBe('commenter');
    } finally {
      await replacement?.stop();
      await dropTestDb(fresh);
    }
  });
});
