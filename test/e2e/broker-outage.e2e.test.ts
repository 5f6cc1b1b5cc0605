/**
 * A broker outage is not an outage (issue 20 item 4): a NATS server of this file's own is stopped for 60 s under
 * a steady mix of reads and comment writes through the gateway. No request fails, no process exits (the outage
 * lasts far beyond OUTAGE_EXIT_MS), `/ready` stays 200 saying DEGRADED, and once NATS is back every comment
 * produces exactly one notification. The machine's shared NATS is never stopped. Needs `npx tsc -b`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '../../scripts/lib/nats';
import { SERVICES } from '../../scripts/lib/system';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem, type NotificationItem } from '../support/e2e';

jest.setTimeout(300_000);

const AUTHOR = 740_001;
const COMMENTER = 740_002;
const OUTAGE_MS = 60_000;
const token = (userId: number) => bearer({ userId, userName: `user${userId}` });

let storeDir: string;
let nats: Awaited<ReturnType<typeof startNatsServer>> | undefined;
let e2e: E2eSystem | undefined;

beforeAll(async () => {
  storeDir = mkdtempSync(path.join(os.tmpdir(), 'binzip-broker-outage-'));
  nats = await startNatsServer({ storeDir: path.join(storeDir, 'nats') });
  e2e = await startE2eSystem('brokeroutage', {
    services: ['community', 'houses', 'notifications'],
    natsUrl: nats.uri,
    env: { LOG_LEVEL: 'error', OUTAGE_EXIT_MS: '5000', OUTBOX_INTERVAL_MS: '500', CEILING_MEMBER_WRITES: '0' },
  });
  await e2e.publishUser({ id: AUTHOR, nick_name: 'author', version: 1 });
  await e2e.publishUser({ id: COMMENTER, nick_name: 'commenter', version: 1 });
});

afterAll(async () => {
  await nats?.restart().catch(() => undefined);
  await e2e?.stop();
  await nats?.stop();
  rmSync(storeDir, { recursive: true, force: true });
});

test('NATS stopped for 60 s under reads and comment writes: 0 failed requests, every comment notified exactly once after', async () => {
  const system = e2e!;
  const boardId = await system.ok<number>('POST', '/api/v1/boards', {
    token: token(AUTHOR),
    body: { title: '브로커 중단', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  await eventually(async () => (await system.ok<{ nickName: string }>('GET', `/api/v1/boards/${boardId}`)).nickName === 'author');

  const failures: string[] = [];
  const comments: string[] = [];
  let requests = 0;
  let running = true;
  const record = async (label: string, call: () => Promise<{ status: number; body: unknown }>) => {
    requests++;
    const res = await call().catch((err: Error) => ({ status: 0, body: err.message }));
    if (res.status !== 200) failures.push(`${label}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const reads = async () => {
    for (let i = 0; running; i++) {
      await record('board list', () => system.api('GET', '/api/v1/boards?prefix=DEFAULT'));
      await record('board', () => system.api('GET', `/api/v1/boards/${boardId}`));
      await record('houses', () => system.api('GET', '/api/v1/houses?page=0'));
      await record('inbox', () => system.api('GET', '/api/v1/notifications', { token: token(AUTHOR) }));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const writes = async () => {
    for (let i = 0; running; i++) {
      const content = `중단 중 댓글 ${i}`;
      await record('comment', async () => {
        const res = await system.api('POST', '/api/v1/comments', { token: token(COMMENTER), body: { boardId, content } });
        if (res.status === 200) comments.push(content);
        return res;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const load = Promise.all([reads(), writes()]);

  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await nats!.stop();
  const stoppedAt = Date.now();
  const community = system.system.services.community![0];
  const degraded = await eventually(async () => {
    const res = await fetch(`${community.url}/ready`);
    const body = (await res.json()) as { data: { status: string } };
    return body.data.status === 'DEGRADED' ? res.status : undefined;
  }, 10_000);
  expect(degraded).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (Date.now() - stoppedAt)));
  // Still ready after 60 s, twelve times OUTAGE_EXIT_MS, and nobody exited.
  expect((await fetch(`${community.url}/ready`)).status).toBe(200);
  await nats!.restart();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  running = false;
  await load;

  expect(failures).toEqual([]);
  expect(requests).toBeGreaterThan(200);
  for (const name of SERVICES) for (const handle of system.system.services[name] ?? []) expect(handle.restarts).toBe(0);

  const onBoard = async () => {
    const items: NotificationItem[] = [];
    let cursor = '';
    for (let pages = 0; pages < 100; pages++) {
      const answer = await system.ok<{ nextId: number | null; notifications: { content: NotificationItem[]; last: boolean } }>(
        'GET',
        `/api/v1/notifications?size=50&id=${cursor}`,
        { token: token(AUTHOR) },
      );
      items.push(...answer.notifications.content);
      if (answer.notifications.last) break;
      cursor = String(answer.nextId);
    }
    return items.filter((n) => n.board_id === boardId);
  };
  await eventually(async () => (await onBoard()).length >= comments.length, 60_000, 500);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const items = await onBoard();
  expect(comments.length).toBeGreaterThan(50);
  expect(items.map((n) => n.comment).sort()).toEqual([...comments].sort());
});
