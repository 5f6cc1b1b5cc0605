import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { consume, createLogger, EventBus, startOutboxRelay, UNKNOWN_NICKNAME, userProjection, type OutboxRelay, type RunningConsumer } from '@binzip/shared';
import { communityCommentCreated, type CommunityCommentCreatedV1 } from '@binzip/events';
import request from 'supertest';
import { startNatsServer } from '../../../scripts/lib/nats';
import { bearer, eventually, publishUserSnapshot, userSnapshot } from '../../../test/support';
import { addMember, startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { communityOutbox } from '../src/events';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { postBoard, postComment } from './helpers';

jest.setTimeout(60_000);
const logger = createLogger('test', 'silent');

describe('nicknames from accounts.user.* on NATS', () => {
  let h: ServiceHarness<CommunityModels>;
  let users: RunningConsumer;

  beforeAll(async () => {
    h = await startServiceHarness('cprojection', { models: communityModels, initModels, buildApp });
    const bus = await h.bus();
    users = await bus.consume(userProjection({ bus, connection: h.connection, service: 'community' }));
  });
  afterAll(async () => {
    await users.stop();
    await h.close();
  });

  test('a published user snapshot, then a nickname change, show in board reads without touching the post', async () => {
    // Not in the projection yet: accounts has not published this user.
    const author = 61;
    const board = await postBoard(h.app, { token: bearer({ userId: author }) });
    const nickNameOfBoard = async () => (await request(h.app).get(`/api/v1/boards/${board}`)).body.data.nickName as string;
    expect(await nickNameOfBoard()).toBe(UNKNOWN_NICKNAME);

    const bus = await h.bus();
    await publishUserSnapshot(bus, userSnapshot(author, '처음이름', { version: 1 }));
    await eventually(async () => (await nickNameOfBoard()) === '처음이름', 10_000);

    await publishUserSnapshot(bus, userSnapshot(author, '바뀐이름', { version: 2 }));
    await eventually(async () => (await nickNameOfBoard()) === '바뀐이름', 10_000);
    const list = await request(h.app).get('/api/v1/boards').query({ prefix: 'DEFAULT' });
    expect(list.body.data.content[0].nickName).toBe('바뀐이름');
    expect((await h.models.boards.findById(board).lean())?.authorId).toBe(author);
  });
});

describe('community.comment.created through the outbox', () => {
  let h: ServiceHarness<CommunityModels>;
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let storeDir: string;
  let bus: EventBus;
  let relay: OutboxRelay;
  let consumer: RunningConsumer;
  const received: CommunityCommentCreatedV1[] = [];

  beforeAll(async () => {
    storeDir = mkdtempSync(path.join(os.tmpdir(), 'community-nats-'));
    nats = await startNatsServer({ storeDir });
    h = await startServiceHarness('coutbox', { models: communityModels, initModels, buildApp });
    // A NATS of its own, which the test stops and restarts.
    bus = await EventBus.connect({ url: nats.uri, prefix: h.names.natsPrefix, name: 'community-test', logger });
    relay = startOutboxRelay(bus, communityOutbox(h.models), { logger, intervalMs: 200 });
    consumer = await bus.consume(
      consume(communityCommentCreated, {
        durable: 'community-test-notifications',
        backoffMs: [1_000],
        handle: async (event) => {
          received.push(event);
        },
      }),
    );
  });
  afterAll(async () => {
    await relay.stop();
    await consumer.stop();
    await bus.close();
    await nats.stop();
    await h.close();
    rmSync(storeDir, { recursive: true, force: true });
  });

  test('a saved comment kicks the relay, which publishes it and empties the outbox', async () => {
    const [author, commenter] = await Promise.all([addMember(h.connection, '글쓴이'), addMember(h.connection, '댓글러')]);
    const board = await postBoard(h.app, author, { title: '알림 글' });
    const kicks = h.outboxKicks.count;
    const comment = await postComment(h.app, commenter, board, '바로 나가는 댓글');
    expect(h.outboxKicks.count).toBe(kicks + 1);
    // What main.ts does on each kick.
    await relay.kick();
    const event = await eventually(() => received.find((e) => e.commentId === comment), 10_000);
    expect(event).toMatchObject({
      v: 1,
      boardId: board,
      boardTitle: '알림 글',
      boardAuthorId: author.id,
      commenterId: commenter.id,
      commenterNickName: '댓글러',
      content: '바로 나가는 댓글',
    });
    await eventually(async () => (await h.models.comments.findById(comment).lean())?.pendingEvents.length === 0, 10_000);
  });

  test('a comment written while NATS is down is answered at once and published once NATS is back', async () => {
    const [author, commenter] = await Promise.all([addMember(h.connection, '글쓴이2'), addMember(h.connection, '댓글러2')]);
    const board = await postBoard(h.app, author, { title: '장애 중 글' });
    await nats.stop();
    const res = await request(h.app).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: board, content: '장애 중 댓글' });
    expect(res.status).toBe(200);
    const comment = res.body.data as number;
    const stored = await h.models.comments.findById(comment).lean();
    expect(stored?.pendingEvents).toHaveLength(1);
    expect(received.some((e) => e.commentId === comment)).toBe(false);

    await nats.restart();
    const event = await eventually(() => received.find((e) => e.commentId === comment), 30_000, 100);
    expect(event).toMatchObject({
      boardId: board,
      boardTitle: '장애 중 글',
      commenterId: commenter.id,
      content: '장애 중 댓글',
      eventId: stored?.pendingEvents[0].id,
    });
    await eventually(async () => (await h.models.comments.findById(comment).lean())?.pendingEvents.length === 0, 10_000);
    // the relay may have tried more than once; the message id keeps it to one event in the stream
    await relay.kick();
    expect(received.filter((e) => e.commentId === comment)).toHaveLength(1);
  });
});
