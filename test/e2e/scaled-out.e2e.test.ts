/**
 * Scaled out (issue 37 items 1 and 3): two gateways, two of every service and a three-node NATS JetStream cluster
 * with every stream kept on all three nodes (`NATS_REPLICAS=3`). Gateway 1 forwards only to the first replica of
 * each service and gateway 2 only to the second (`splitUpstreams`), so sending requests alternately through the
 * two gateways sends them alternately to two replicas: what must hold for the whole deployment is shown to hold
 * across copies, not per copy (ceilings, locks, cached answers, outbox relays, revocations, and each process's memory of
 * members: a suspension and a rename). Then the leader node of the streams in use is killed and the pipeline keeps
 * working, each comment notified exactly once. The built processes (`npx tsc -b`), the run's MongoDB-protocol
 * server, and this file's own NATS nodes (the machine's shared NATS is never touched).
 */
import { type EventBus } from '@binzip/shared';
import { communityCommentCreated } from '@binzip/events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsCluster, type NatsCluster } from '../../scripts/lib/nats-cluster';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem, type NotificationItem } from '../support/e2e';

jest.setTimeout(900_000);

const PASSWORD = 'Passw0rd!';
const member = (n: number) => ({
  userName: `scaled${n}`,
  password: PASSWORD,
  nick_name: `확장회원${n}`,
  phone_num: `0106666100${n}`,
  age: '30대',
  join_paths: ['검색'],
  terms: ['SERVICE_USED_AGREE'],
  email: `scaled${n}@example.com`,
});

/** Members known to the services through published snapshots (bearer tokens of the test key). */
const AUTHOR = 9101;
const WRITER = 9102;
const COMMENTERS = [9111, 9112, 9113, 9114, 9115, 9116];
const token = (userId: number) => bearer({ userId, userName: `user${userId}` });

/** The ceilings made small, so crossing them takes a few requests; every count is shared by both replicas. */
const MEMBER_WRITES = 6;
const SIGN_UPS_PER_ADDRESS = 5;
const CODE_SENDS_PER_ADDRESS = 12;

let storeDir: string;
let cluster: NatsCluster;
let e2e: E2eSystem;

/** Through gateway 1 (replica 1 of every service) on even i, gateway 2 (replica 2) on odd i. */
const via = (i: number) => i % 2;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(process.env.BINZIP_TEST_DATA_DIR ?? os.tmpdir(), 'scaled-out-nats-'));
  cluster = await startNatsCluster({ storeDir });
  e2e = await startE2eSystem('scaledout', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
    instances: { accounts: 2, community: 2, houses: 2, records: 2, notifications: 2 },
    gateways: 2,
    splitUpstreams: true,
    // Fifteen processes start one after the other on a small machine.
    readyTimeoutMs: 90_000,
    natsUrl: cluster.uri,
    env: {
      LOG_LEVEL: 'warn',
      BCRYPT_COST: '4',
      NATS_REPLICAS: '3',
      // Fifteen processes on two shared cores: answers that take seconds are the machine, not the point here.
      UPSTREAM_TIMEOUT_MS: '30000',
      OUTBOX_INTERVAL_MS: '500',
      CEILING_MEMBER_WRITES: String(MEMBER_WRITES),
      CEILING_SIGN_UPS_PER_ADDRESS: String(SIGN_UPS_PER_ADDRESS),
      CEILING_CODE_SENDS_PER_ADDRESS: String(CODE_SENDS_PER_ADDRESS),
    },
    // A new cluster elects its JetStream leader some seconds after the nodes listen: streams with three replicas
    // can be made only then, so the services start once one could be.
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
        // A minute was not always enough at load average 35 on two cores.
        180_000,
        500,
      );
      for (const id of [WRITER, ...COMMENTERS]) await stores.publishUser({ id, nick_name: `댓글${id}`, version: 1 });
    },
  });
}, 900_000);

afterAll(async () => {
  await e2e?.stop();
  await cluster?.stop();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
});

/** Sign-ups (3 of them, 6 code sends) made once, alternating gateways; the code-check test sends one more. */
const signedUp: Array<ReturnType<typeof member>> = [];
const CODE_SENDS_BY_SIGN_UPS = 6;

test('every stream is kept on the three nodes', async () => {
  const bus = await e2e.bus();
  for (const stream of ['ACCOUNTS', 'COMMUNITY', 'SESSIONS'] as const) {
    const info = await eventually(() => bus.manager.streams.info(bus.streamName(stream)).catch(() => undefined), 30_000, 250);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.replicas?.length).toBe(2);
  }
});

test('sign-ups through both gateways (members for the tests below)', async () => {
  for (let n = 1; n <= 3; n++) {
    const body = member(n);
    const gateway = via(n);
    for (const [channel, field, target] of [
      ['sms', 'phone_num', body.phone_num],
      ['email', 'email', body.email],
    ] as const) {
      await e2e.ok('POST', `/api/v1/users/send/${channel}`, { gateway, body: { [field]: target } });
      // The code is checked through the other gateway: the code a replica stored is the other replica's too.
      expect(
        await e2e.ok('POST', `/api/v1/users/check/${channel}`, { gateway: gateway + 1, body: { [field]: target, code: await e2e.codeSentTo(target) } }),
      ).toBe(true);
    }
    await e2e.ok('POST', '/api/v1/users/sign-up', { gateway, body });
    signedUp.push(body);
  }
  expect(signedUp).toHaveLength(3);
});

test('the code-check lock: 5 wrong checks on alternating replicas void the code everywhere', async () => {
  const phone = '01055559999';
  await e2e.ok('POST', '/api/v1/users/send/sms', { gateway: 0, body: { phone_num: phone } });
  const code = await e2e.codeSentTo(phone);
  const wrong = code === '111111' ? '222222' : '111111';
  for (let i = 0; i < 5; i++) expect(await e2e.ok('POST', '/api/v1/users/check/sms', { gateway: via(i), body: { phone_num: phone, code: wrong } })).toBe(false);
  for (const gateway of [0, 1]) expect(await e2e.ok('POST', '/api/v1/users/check/sms', { gateway, body: { phone_num: phone, code } })).toBe(false);
});

test('per-address ceilings count over both replicas: sign-ups and code sends', async () => {
  // Every sign-up attempt counts, those refused for their content too (these have no verified contacts: U0011).
  const answers: number[] = [];
  for (let i = 0; answers.length < 10; i++) {
    const res = await e2e.api('POST', '/api/v1/users/sign-up', { gateway: via(i), body: member(7 + (i % 3)), contract: false });
    answers.push(res.status);
    if (res.status === 429) break;
  }
  expect(answers.filter((s) => s === 400)).toHaveLength(SIGN_UPS_PER_ADDRESS - signedUp.length);
  expect(answers.at(-1)).toBe(429);

  const sends: number[] = [];
  for (let i = 0; sends.length < 20; i++) {
    const res = await e2e.api('POST', '/api/v1/users/send/sms', { gateway: via(i), body: { phone_num: `010555520${String(i).padStart(2, '0')}` } });
    sends.push(res.status);
    if (res.status === 429) break;
  }
  expect(sends.filter((s) => s === 200)).toHaveLength(CODE_SENDS_PER_ADDRESS - CODE_SENDS_BY_SIGN_UPS - 1);
  expect(sends.at(-1)).toBe(429);
});

test('the per-member write ceiling counts over both replicas of a service', async () => {
  const answers: number[] = [];
  for (let i = 0; i < MEMBER_WRITES + 2; i++) {
    const res = await e2e.api('POST', '/api/v1/boards', {
      gateway: via(i),
      token: token(WRITER),
      body: { title: `글 ${i}`, code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
    });
    answers.push(res.status);
  }
  expect(answers).toEqual([...Array(MEMBER_WRITES).fill(200), 429, 429]);
});

test('the sign-in lock judges at most 5 wrong guesses per account, however they are spread over replicas', async () => {
  const target = signedUp[0];
  const guesses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      e2e.api('POST', '/api/v1/users/sign-in', { gateway: via(i), body: { userName: target.userName, password: `Wrong${i}pw!` } }),
    ),
  );
  const judged = guesses.filter((g) => g.status === 400 && g.body.code === 'U0002').length;
  expect(judged).toBe(5);
  expect(guesses.filter((g) => g.status === 429 && g.body.code === 'C0004')).toHaveLength(15);
  // Locked on both replicas: the right password is refused through either gateway.
  for (const gateway of [0, 1]) {
    const refused = await e2e.api('POST', '/api/v1/users/sign-in', { gateway, body: { userName: target.userName, password: PASSWORD } });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'C0004' });
  }
});

async function inbox(userId: number, gateway: number): Promise<NotificationItem[]> {
  const answer = await e2e.ok<{ notifications: { content: NotificationItem[] } }>('GET', '/api/v1/notifications?size=100&id=', {
    gateway,
    token: token(userId),
  });
  return answer.notifications.content;
}

let boardId: number;
let published: Array<{ commentId: number }>;

test('a write through one replica forgets the other replica cached answer within the cache time (1 s)', async () => {
  boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    gateway: 0,
    token: token(AUTHOR),
    body: { title: '확장 글', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  published = await e2e.collect(communityCommentCreated, 'scaled-out-comments');
  // Both replicas have the (empty) comment list cached.
  for (const gateway of [0, 1, 0, 1]) expect(await e2e.ok('GET', `/api/v1/comments/${boardId}`, { gateway })).toEqual([]);
  await e2e.ok('POST', '/api/v1/comments', { gateway: 0, token: token(COMMENTERS[0]), body: { boardId, content: '첫 댓글' } });
  const wrote = Date.now();
  await eventually(async () => ((await e2e.ok<unknown[]>('GET', `/api/v1/comments/${boardId}`, { gateway: 1 })).length === 1 ? true : undefined), 1_000, 20);
  expect(Date.now() - wrote).toBeLessThan(1_000);
});

test('each outbox record is published once with relays on both replicas, and notified once', async () => {
  const contents: string[] = ['첫 댓글'];
  for (let i = 0; i < 10; i++) {
    const content = `댓글 ${i}`;
    await e2e.ok('POST', '/api/v1/comments', { gateway: via(i), token: token(COMMENTERS[1 + (i % 5)]), body: { boardId, content } });
    contents.push(content);
  }
  await eventually(() => published.length >= contents.length, 20_000, 100);
  await eventually(async () => ((await inbox(AUTHOR, 1)).filter((n) => n.board_id === boardId).length >= contents.length ? true : undefined), 20_000, 200);
  await new Promise((r) => setTimeout(r, 2_000));
  expect(new Set(published.map((p) => p.commentId)).size).toBe(contents.length);
  expect(published).toHaveLength(contents.length);
  for (const gateway of [0, 1]) {
    const items = (await inbox(AUTHOR, gateway)).filter((n) => n.board_id === boardId);
    expect(items.map((n) => n.comment).sort()).toEqual([...contents].sort());
  }
});

/** Reads that need the member's session on every service, through one gateway (so on one replica of each). */
const SESSION_READS = ['/api/v1/users', '/api/v1/boards?prefix=DEFAULT', '/api/v1/notifications?size=1&id=', '/api/v1/houses/scrap', '/api/v1/record/hot'];

async function refusedEverywhere(accessToken: string): Promise<number> {
  const started = Date.now();
  for (const gateway of [0, 1]) {
    for (const read of SESSION_READS) {
      await eventually(
        async () => ((await e2e.api('GET', read, { gateway, token: accessToken, contract: false })).status === 401 ? true : undefined),
        2_000,
        20,
      );
    }
  }
  return Date.now() - started;
}

test('a logout and a password change are refused by every replica of every service within 2 s', async () => {
  const [, leaving, changing] = signedUp;
  const loggedOut = await e2e.signIn(leaving.userName, PASSWORD);
  const kept = await e2e.signIn(changing.userName, PASSWORD);
  const ended = await e2e.signIn(changing.userName, PASSWORD);
  for (const accessToken of [loggedOut, ended]) {
    for (const gateway of [0, 1]) {
      for (const read of SESSION_READS) expect((await e2e.api('GET', read, { gateway, token: accessToken, contract: false })).status).toBe(200);
    }
  }
  await e2e.ok('POST', '/api/v1/users/logout', { gateway: 1, token: loggedOut });
  expect(await refusedEverywhere(loggedOut)).toBeLessThan(2_000 * SESSION_READS.length * 2);
  await e2e.ok('PUT', '/api/v1/users', { gateway: 0, token: kept, body: { password: PASSWORD, new_password: 'Chang3d!!' } });
  expect(await refusedEverywhere(ended)).toBeLessThan(2_000 * SESSION_READS.length * 2);
  // The session that changed the password goes on.
  expect((await e2e.api('GET', '/api/v1/users', { gateway: 1, token: kept })).status).toBe(200);
});

test("a suspension and a rename reach every replica's memory of members: writes refused within 2 s, the new name shown too", async () => {
  // Each process remembers a member's name and whether his writes are refused (ProjectedUserMemory): the snapshot
  // that changes either must reach both replicas' memories, not only their projections.
  const member = 9120;
  await e2e.publishUser({ id: member, nick_name: '정지예정', version: 1 });
  const comment = (gateway: number, content: string) =>
    e2e.api('POST', '/api/v1/comments', { gateway, token: token(member), body: { boardId, content }, contract: false });
  const shownName = async (gateway: number) =>
    (await e2e.ok<Array<{ nickName: string; content: string }>>('GET', `/api/v1/comments/${boardId}`, { gateway })).find((c) => c.content.startsWith('기억'))
      ?.nickName;
  for (const gateway of [0, 1]) {
    await eventually(async () => ((await comment(gateway, `기억 ${gateway}`)).status === 200 ? true : undefined), 10_000, 100);
    await eventually(async () => ((await shownName(gateway)) === '정지예정' ? true : undefined), 5_000, 50);
  }
  await e2e.publishUser({ id: member, nick_name: '바뀐이름', version: 2, status: 'SUSPENDED' });
  const changed = Date.now();
  // The names first, before any write of his: a write's guard reads him again after 1 s, which would renew them.
  // Only one replica stores the snapshot (one durable consumer); the other forgets on its announcement, or would
  // show the old name for the answers' 10 s.
  for (const gateway of [0, 1]) await eventually(async () => ((await shownName(gateway)) === '바뀐이름' ? true : undefined), 2_000, 50);
  for (const gateway of [0, 1]) {
    // Few attempts (each write that passes the guard counts toward the member's ceiling of 6).
    const refused = await eventually(
      async () => {
        const res = await comment(gateway, '정지 후');
        return res.status === 403 ? res : undefined;
      },
      2_000,
      250,
    );
    expect(refused.body.code).toBe('U0012');
  }
  expect(Date.now() - changed).toBeLessThan(4_000);
});

async function leaderOf(bus: EventBus, stream: 'COMMUNITY'): Promise<string> {
  const info = await bus.manager.streams.info(bus.streamName(stream));
  return String(info.cluster?.leader);
}

test('the COMMUNITY stream leader node killed and back after 15 s: comments written meanwhile notified exactly once', async () => {
  const bus = await e2e.bus();
  const board = await e2e.ok<number>('POST', '/api/v1/boards', {
    gateway: 1,
    token: token(AUTHOR),
    body: { title: '장애 글', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const leader = await leaderOf(bus, 'COMMUNITY');
  const node = cluster.nodes.find((n) => n.name === leader);
  expect(node).toBeDefined();
  node!.child()?.kill('SIGKILL');
  const killedAt = Date.now();
  const contents: string[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const content = `장애 중 댓글 ${i}`;
      // Stored with its outbox record whatever the broker does: the write does not wait for NATS.
      await e2e.ok('POST', '/api/v1/comments', { gateway: via(i), token: token(COMMENTERS[i % 6]), body: { boardId: board, content } });
      contents.push(content);
    }
    // The node comes back as a restarted host would (bench:faults does the same). A leader lost for good was not
    // shown to recover on the loaded machine this was written on: publishes to the stream timed out for over two
    // minutes in two runs of three (docs/operations.md, "Losing one of anything").
    await new Promise((r) => setTimeout(r, Math.max(0, 15_000 - (Date.now() - killedAt))));
    await node!.start();
    await eventually(async () => ((await inbox(AUTHOR, 0)).filter((n) => n.board_id === board).length >= contents.length ? true : undefined), 120_000, 250);
  } catch (err) {
    for (const service of ['community', 'notifications'] as const)
      for (const handle of e2e.system.services[service] ?? []) console.log(`${handle.name}:\n${handle.output.slice(-10).join('')}`);
    throw err;
  }
  await new Promise((r) => setTimeout(r, 3_000));
  for (const gateway of [0, 1]) {
    const items = (await inbox(AUTHOR, gateway)).filter((n) => n.board_id === board);
    expect(items.map((n) => n.comment).sort()).toEqual([...contents].sort());
  }
});
