/**
 * The comment -> notification pipeline through real processes: gateway, community and notifications as
 * child processes, a private NATS server this file may stop and restart, the run's MongoDB-protocol server.
 * Users are the test key's bearer tokens; their nicknames reach the services as accounts.user.* snapshots.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '../../scripts/lib/nats';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem, type NotificationItem } from '../support/e2e';

jest.setTimeout(180_000);

const AUTHOR = 301;
const COMMENTER = 302;
const OTHER = 303;
const NICKNAMES: Record<number, string> = { [AUTHOR]: 'boardAuthor', [COMMENTER]: 'commenter', [OTHER]: 'bystander' };

let storeDir: string;
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let e2e: E2eSystem;

interface InboxAnswer {
  nextId: number | null;
  notifications: { content: NotificationItem[]; last: boolean };
}

const token = (userId?: number) => (userId === undefined ? undefined : bearer({ userId, userName: `user${userId}` }));
const api = <T = unknown>(method: string, urlPath: string, userId?: number, body?: unknown) => e2e.api<T>(method, urlPath, { token: token(userId), body });

async function createBoard(title: string): Promise<number> {
  const res = await api<number>('POST', '/api/v1/boards', AUTHOR, {
    title,
    code: '<p>빈집 이야기</p>',
    category: null,
    imageUrls: [],
    prefixCategory: 'DEFAULT',
    fixed: false,
  });
  expect(res.status).toBe(200);
  return res.body.data as number;
}

const comment = (userId: number, boardId: number, content: string) =>
  e2e.ok<number>('POST', '/api/v1/comments', { token: token(userId), body: { boardId, content } });

/** Writes the comments a few at a time (the machine is small; the order does not matter). */
async function commentMany(boardId: number, contents: string[]): Promise<void> {
  const queue = [...contents];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await comment(COMMENTER, boardId, next);
    }),
  );
}

/** Every notification of a user, following the cursor to the end. */
async function inbox(userId: number, query = ''): Promise<NotificationItem[]> {
  const items: NotificationItem[] = [];
  let cursor = '';
  for (let pages = 0; pages < 100; pages++) {
    const answer = await e2e.ok<InboxAnswer>('GET', `/api/v1/notifications?size=50&id=${cursor}${query}`, { token: token(userId) });
    items.push(...answer.notifications.content);
    if (answer.notifications.last) return items;
    cursor = String(answer.nextId);
  }
  throw new Error('inbox did not end');
}

const onBoard = async (userId: number, boardId: number) => (await inbox(userId)).filter((n) => n.board_id === boardId);

/** Waits until exactly the expected comments are in the author's inbox for the board, then checks no extra arrives. */
async function expectExactlyOnce(boardId: number, contents: string[], timeoutMs: number): Promise<void> {
  await eventually(async () => (await onBoard(AUTHOR, boardId)).length >= contents.length, timeoutMs, 250);
  const items = await onBoard(AUTHOR, boardId);
  expect(items).toHaveLength(contents.length);
  expect(new Set(items.map((n) => n.comment))).toEqual(new Set(contents));
  expect(new Set(items.map((n) => n.notification_id)).size).toBe(contents.length);
}

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(process.env.BINZIP_TEST_DATA_DIR ?? os.tmpdir(), 'notif-e2e-nats-'));
  nats = await startNatsServer({ storeDir });
  e2e = await startE2eSystem('notife2e', {
    services: ['community', 'notifications'],
    natsUrl: nats.uri,
    // One member writes 200 comments in seconds here on purpose (the pipeline under crashes is what is tested), far
    // above the per-member write ceiling that services/*/test and the ceilings tests hold to account.
    env: { LOG_LEVEL: 'warn', OUTBOX_INTERVAL_MS: '500', CEILING_MEMBER_WRITES: '0' },
  });
  for (const [id, nickName] of Object.entries(NICKNAMES)) {
    await e2e.publishUser({ id: Number(id), nick_name: nickName, version: 1 });
  }
});

afterAll(async () => {
  await e2e?.stop();
  await nats?.stop();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
});

it('shows a comment written through the gateway to the board author within 2 s, to nobody else', async () => {
  const boardId = await createBoard('첫 글');
  // Community learns nicknames from the same snapshots; wait for them so the comment carries one.
  await eventually(async () => (await api<{ nickName: string }>('GET', `/api/v1/boards/${boardId}`)).body.data?.nickName === NICKNAMES[AUTHOR]);

  await comment(COMMENTER, boardId, '정말 멋진 집이네요');
  const [item] = await eventually(async () => {
    const items = await onBoard(AUTHOR, boardId);
    return items.length > 0 ? items : undefined;
  }, 2_000);
  expect(item).toEqual({
    notification_id: expect.any(Number),
    nick_name: 'boardAuthor',
    board_id: boardId,
    board_title: '첫 글',
    status: false,
    comment: '정말 멋진 집이네요',
    comment_user: 'commenter',
    type: 'board',
  });
  const id = item.notification_id;

  expect(await onBoard(COMMENTER, boardId)).toEqual([]);
  expect(await onBoard(OTHER, boardId)).toEqual([]);
  const foreign = await api('PUT', `/api/v1/notifications/${id}`, OTHER);
  expect(foreign.status).toBe(403);
  expect(foreign.body.code).toBe('C0003');
  expect((await api('PUT', `/api/v1/notifications/${id}`)).status).toBe(401);

  const own = await api<number>('PUT', `/api/v1/notifications/${id}`, AUTHOR);
  expect(own.body).toEqual({ code: 'SUCCESS', message: '성공', data: id });
  expect((await inbox(AUTHOR, '&read=true')).map((n) => n.notification_id)).toContain(id);
  expect((await inbox(AUTHOR, '&read=false')).map((n) => n.notification_id)).not.toContain(id);

  // The author's own comment notifies nobody; a later comment by someone else proves it was handled.
  await comment(AUTHOR, boardId, '감사합니다');
  await comment(COMMENTER, boardId, '또 올게요');
  await eventually(async () => (await onBoard(AUTHOR, boardId)).length === 2, 5_000);
  expect((await onBoard(AUTHOR, boardId)).map((n) => n.comment).sort()).toEqual(['또 올게요', '정말 멋진 집이네요']);
});

it('delivers all 200 comments written while notifications is stopped, each once, after it starts again', async () => {
  const boardId = await createBoard('서비스 중단 중 댓글');
  const notifications = e2e.system.services.notifications?.[0];
  if (!notifications) throw new Error('notifications not started');
  await notifications.stop();

  const contents = Array.from({ length: 200 }, (_, i) => `중단 중 댓글 ${i}`);
  await commentMany(boardId, contents);
  const down = await api('GET', '/api/v1/notifications', AUTHOR);
  expect(down.status).toBe(503);

  await notifications.restart();
  await expectExactlyOnce(boardId, contents, 60_000);
});

it('delivers all 200 comments when NATS stops during the writes and starts again, each once', async () => {
  const boardId = await createBoard('NATS 중단 중 댓글');
  const contents = Array.from({ length: 200 }, (_, i) => `NATS 중단 댓글 ${i}`);
  await commentMany(boardId, contents.slice(0, 70));
  await nats.stop();
  // Writes keep succeeding: the events wait in community's outbox.
  await commentMany(boardId, contents.slice(70, 140));
  // Nothing written during the outage can have arrived: proof that the outage was real.
  expect((await onBoard(AUTHOR, boardId)).filter((n) => contents.indexOf(n.comment) >= 70)).toEqual([]);
  await nats.restart();
  await commentMany(boardId, contents.slice(140));
  await expectExactlyOnce(boardId, contents, 90_000);
});
