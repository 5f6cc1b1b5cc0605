import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  COMMUNITY_COMMENT_CREATED,
  communityCommentCreatedV1,
  createLogger,
  EventBus,
  startUserProjection,
  UNKNOWN_NICKNAME,
  type CommunityCommentCreatedV1,
  type OutboxRelay,
  type RunningConsumer,
} from '@binzip/shared';
import request from 'supertest';
import { startNatsServer } from '../../../scripts/lib/nats';
import { eventually, publishUserSnapshot, testEnv, userSnapshot } from '../../../test/support';
import { startCommentRelay } from '../src/events/outbox';
import { asUser, postBoard, postComment, setUp, type TestContext } from './helpers';

jest.setTimeout(60_000);
const logger = createLogger('test', 'silent');

describe('nicknames from accounts.user.* on NATS', () => {
  let ctx: TestContext;
  let bus: EventBus;
  let users: RunningConsumer;

  beforeAll(async () => {
    ctx = await setUp('cprojection');
    bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: ctx.names.natsPrefix, name: 'community-test', logger });
    users = await startUserProjection({ bus, connection: ctx.connection, service: 'community', logger });
  });
  afterAll(async () => {
    await users.stop();
    await bus.deleteStreams();
    await bus.close();
    await ctx.close();
  });

  test('a published user snapshot, then a nickname change, show in board reads without touching the post', async () => {
    const author = 61;
    const board = await postBoard(ctx, author);
    const nickNameOfBoard = async () => (await request(ctx.app).get(`/api/v1/boards/${board}`)).body.data.nickName as string;
    expect(await nickNameOfBoard()).toBe(UNKNOWN_NICKNAME);

    await publishUserSnapshot(bus, userSnapshot(author, '처음이름', { version: 1 }));
    await eventually(async () => (await nickNameOfBoard()) === '처음이름', 10_000);

    await publishUserSnapshot(bus, userSnapshot(author, '바뀐이름', { version: 2 }));
    await eventually(async () => (await nickNameOfBoard()) === '바뀐이름', 10_000);
    const list = await request(ctx.app).get('/api/v1/boards').query({ prefix: 'DEFAULT' });
    expect(list.body.data.content[0].nickName).toBe('바뀐이름');
    expect((await ctx.models.Board.findById(board).lean())?.authorId).toBe(author);
  });
});

describe('community.comment.created through the outbox', () => {
  let ctx: TestContext;
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let storeDir: string;
  let bus: EventBus;
  let relay: OutboxRelay;
  let consumer: RunningConsumer;
  const received: CommunityCommentCreatedV1[] = [];

  beforeAll(async () => {
    storeDir = mkdtempSync(path.join(os.tmpdir(), 'community-nats-'));
    nats = await startNatsServer({ storeDir });
    const relayRef: { kick(): Promise<void> } = { kick: () => relay.kick() };
    ctx = await setUp('coutbox', { relay: relayRef });
    bus = await EventBus.connect({ url: nats.uri, prefix: ctx.names.natsPrefix, name: 'community-test', logger });
    relay = await startCommentRelay({ bus, models: ctx.models, logger, intervalMs: 200 });
    consumer = await bus.consume({
      stream: 'COMMUNITY',
      durable: 'community-test-notifications',
      filterSubject: COMMUNITY_COMMENT_CREATED,
      schema: communityCommentCreatedV1,
      backoffMs: [1_000],
      handle: async (event) => {
        received.push(event);
      },
    });
  });
  afterAll(async () => {
    await relay.stop();
    await consumer.stop();
    await bus.close();
    await nats.stop();
    await ctx.close();
    rmSync(storeDir, { recursive: true, force: true });
  });

  test('a comment is published right after it is saved and leaves the outbox', async () => {
    const board = await postBoard(ctx, 1, { title: '알림 글' });
    const comment = await postComment(ctx, 2, board, '바로 나가는 댓글');
    const event = await eventually(() => received.find((e) => e.commentId === comment), 10_000);
    expect(event).toMatchObject({ v: 1, boardId: board, boardTitle: '알림 글', boardAuthorId: 1, commenterId: 2, content: '바로 나가는 댓글' });
    await eventually(async () => (await ctx.models.Comment.findById(comment).lean())?.pendingEvents.length === 0, 10_000);
  });

  test('a comment written while NATS is down is answered at once and published once NATS is back', async () => {
    const board = await postBoard(ctx, 1, { title: '장애 중 글' });
    await nats.stop();
    const res = await request(ctx.app).post('/api/v1/comments').set('Authorization', asUser(3)).send({ boardId: board, content: '장애 중 댓글' });
    expect(res.status).toBe(200);
    const comment = res.body.data as number;
    const stored = await ctx.models.Comment.findById(comment).lean();
    expect(stored?.pendingEvents).toHaveLength(1);
    expect(received.some((e) => e.commentId === comment)).toBe(false);

    await nats.restart();
    const event = await eventually(() => received.find((e) => e.commentId === comment), 30_000, 100);
    expect(event).toMatchObject({ boardId: board, boardTitle: '장애 중 글', commenterId: 3, content: '장애 중 댓글', eventId: stored?.pendingEvents[0].id });
    await eventually(async () => (await ctx.models.Comment.findById(comment).lean())?.pendingEvents.length === 0, 10_000);
    // the relay may have tried more than once; the message id keeps it to one event in the stream
    await relay.kick();
    expect(received.filter((e) => e.commentId === comment)).toHaveLength(1);
  });
});
