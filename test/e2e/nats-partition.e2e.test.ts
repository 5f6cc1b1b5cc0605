/**
 * A NATS node returning after a partition (issue 37, "Bad input and faults"): the node leading notifications'
 * board-comment consumer is frozen (SIGSTOP: cut off from its peers and its clients alike) while comments keep
 * being written; another node takes the consumer over and delivers them; then the node returns with the consumer
 * state it had when it was cut off. Whatever is delivered again must not become new notifications: every comment
 * written before, during and after the partition is notified exactly once, counted in notifications' own store.
 * Deliveries are delivered again here (a burst of comments lands just before the cut): with the unique keys of
 * notifications' store and its check before writing taken out, two comments of one run were notified twice.
 * This file's own three-node cluster (the machine's shared NATS is never touched), the built processes (`npx tsc
 * -b`), two notifications replicas consuming as in a deployment.
 */
import { createLogger, EventBus } from '@binzip/shared';
import { communityCommentCreated } from '@binzip/events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsCluster, type NatsCluster } from '../../scripts/lib/nats-cluster';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(600_000);

const AUTHOR = 9201;
const COMMENTERS = [9211, 9212, 9213];
const token = (userId: number) => bearer({ userId, userName: `user${userId}` });
const DURABLE = 'notifications-board-comments';
/** Long enough for the other two nodes to elect a new consumer leader (about 2-5 s) and deliver under it. */
const PARTITION_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let storeDir: string;
let cluster: NatsCluster;
let e2e: E2eSystem;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(process.env.BINZIP_TEST_DATA_DIR ?? os.tmpdir(), 'nats-partition-'));
  cluster = await startNatsCluster({ storeDir });
  e2e = await startE2eSystem('partition', {
    services: ['community', 'notifications'],
    instances: { notifications: 2 },
    readyTimeoutMs: 90_000,
    natsUrl: cluster.uri,
    env: { LOG_LEVEL: 'warn', NATS_REPLICAS: '3', UPSTREAM_TIMEOUT_MS: '30000', OUTBOX_INTERVAL_MS: '500' },
    // Streams with three replicas can be made only once the new cluster has elected its JetStream leader.
    beforeStart: async (stores) => {
      await eventually(
        async () => {
          try {
            await stores.publishUser({ id: AUTHOR, nick_name: '글쓴이', version: 1 });
            return true;
          } catch {
            return false;
          }
        },
        180_000,
        500,
      );
      for (const id of COMMENTERS) await stores.publishUser({ id, nick_name: `댓글${id}`, version: 1 });
    },
  });
}, 600_000);

afterAll(async () => {
  for (const node of cluster?.nodes ?? []) node.child()?.kill('SIGCONT');
  await e2e?.stop();
  await cluster?.stop();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
});

async function consumerLeader(bus: EventBus): Promise<string | undefined> {
  const info = await bus.manager.consumers.info(bus.streamName('COMMUNITY'), bus.durableName(DURABLE)).catch(() => undefined);
  return info?.cluster?.leader;
}

/** Notifications stored per comment of the board (from notifications' store, not through a cached answer). */
async function noticesPerComment(boardId: number): Promise<Map<number, number>> {
  const db = await e2e.db('notifications');
  const rows = await db
    .collection('notifications')
    .find({ kind: 'board', targetId: boardId }, { projection: { commentId: 1 } })
    .toArray();
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(row.commentId as number, (counts.get(row.commentId as number) ?? 0) + 1);
  return counts;
}

test('the consumer leader node partitioned for 20 s and back: every comment notified exactly once', async () => {
  const bus = await e2e.bus();
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: token(AUTHOR),
    body: { title: '분할 글', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const published = await e2e.collect(communityCommentCreated, 'partition-comments');
  const written: number[] = [];
  let sent = 0;
  const write = async (label: string) => {
    const i = sent++;
    await e2e.ok('POST', '/api/v1/comments', { token: token(COMMENTERS[i % COMMENTERS.length]), body: { boardId, content: `${label} 댓글 ${i}` } });
    written.push(i);
  };
  // Before: the consumer exists and has delivered (its leader is known).
  for (let i = 0; i < 5; i++) await write('분할 전');
  await eventually(async () => ((await noticesPerComment(boardId)).size >= written.length ? true : undefined), 60_000, 250);
  const leader = await eventually(() => consumerLeader(bus), 30_000, 250);
  // The stream and the consumer are kept on all three nodes (one replica would make this a node loss, not a partition).
  expect((await bus.manager.streams.info(bus.streamName('COMMUNITY'))).config.num_replicas).toBe(3);
  expect((await bus.manager.consumers.info(bus.streamName('COMMUNITY'), bus.durableName(DURABLE))).cluster?.replicas).toHaveLength(2);
  const node = cluster.nodes.find((n) => n.name === leader);
  expect(node).toBeDefined();

  // The other side of the partition, asked through its own nodes only (the test's bus may be on the frozen one).
  const majority = await EventBus.connect({
    url: cluster.nodes
      .filter((n) => n !== node)
      .map((n) => n.uri)
      .join(','),
    prefix: e2e.names.natsPrefix,
    name: 'partition-majority',
    logger: createLogger('e2e', 'silent'),
  });
  // A burst just before the cut, so that deliveries are in flight on the node when it stops: their acks are lost
  // with it, and the new leader redelivers what the notifications replicas had already stored.
  await Promise.all(Array.from({ length: 12 }, () => write('분할 직전')));
  await sleep(300);
  node!.child()?.kill('SIGSTOP');
  const frozenAt = Date.now();
  let leaderDuring: string | undefined;
  try {
    // During: comments go on being written (the write does not wait for NATS) and the other two nodes deliver them.
    while (Date.now() - frozenAt < PARTITION_MS) {
      await write('분할 중');
      leaderDuring = (await consumerLeader(majority)) ?? leaderDuring;
      await sleep(400);
    }
  } finally {
    node!.child()?.kill('SIGCONT');
    await majority.close();
  }
  // After: the node is back with what it knew when it was cut off; comments go on.
  for (let i = 0; i < 10; i++) {
    await write('분할 후');
    await sleep(300);
  }
  await eventually(async () => (published.length >= written.length ? true : undefined), 120_000, 250);
  await eventually(async () => ((await noticesPerComment(boardId)).size >= written.length ? true : undefined), 120_000, 250);
  // Time for anything the returned node redelivers to arrive (a redelivery waits for the consumer's ack wait).
  await eventually(
    async () => {
      const info = await bus.manager.consumers.info(bus.streamName('COMMUNITY'), bus.durableName(DURABLE)).catch(() => undefined);
      return info && info.num_ack_pending === 0 && info.num_pending === 0 ? info : undefined;
    },
    60_000,
    500,
  );
  await sleep(5_000);

  // The consumer was led by another node while this one was cut off.
  expect(leaderDuring).toBeDefined();
  expect(leaderDuring).not.toBe(leader);
  const commentIds = new Set(published.map((event) => event.commentId));
  expect(commentIds.size).toBe(written.length);
  const counts = await noticesPerComment(boardId);
  expect([...counts.keys()].sort((a, b) => a - b)).toEqual([...commentIds].sort((a, b) => a - b));
  expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
});
