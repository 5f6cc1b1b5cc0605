/**
 * Issue 38's live stream through the real gateway process: a member takes a ticket, opens
 * `GET /api/v1/notifications/stream?ticket=` on the gateway (the browser's EventSource way), and the notices of
 * a comment on their post and of a listing matching their saved search arrive on it as they are stored;
 * heartbeats come through the gateway under its 10 s; a reconnect with `Last-Event-ID` (the header, as
 * EventSource sends it, with the access token) gets what was missed while away, in order, nothing twice.
 * Web Push through the same processes: the notifications process has VAPID keys and sends to the local push sink
 * (scripts/lib/push-sink.ts) as it would to a browser's push service; a member subscribes a device through the
 * gateway, the next notice arrives there decrypted, and after unsubscribing nothing more does.
 * Needs the built processes (`npx tsc -b`).
 */
import webpush from 'web-push';
import { startPushSink, type PushSink } from '../../scripts/lib/push-sink';
import { bearer, eventually } from '../support';
import { sampleListing, startE2eSystem, type E2eSystem } from '../support/e2e';
import { openStream, type SseClient, type SseEvent } from '../support/sse';

jest.setTimeout(180_000);

const MEMBER = 3_801;
const COMMENTER = 3_802;
const AGENT = 3_803;

let e2e: E2eSystem;
let sink: PushSink;
const vapid = webpush.generateVAPIDKeys();
const streams: SseClient[] = [];

const token = (userId: number, userType: 'NONE' | 'AGENT' = 'NONE') => bearer({ userId, userName: `user${userId}`, userType });
const item = (event: SseEvent) => JSON.parse(event.data ?? '{}') as { notification_id: number; kind: string; [field: string]: unknown };
const stream = (query: string, headers: Record<string, string> = {}) => {
  const opened = openStream(`${e2e.url}/api/v1/notifications/stream${query}`, headers);
  streams.push(opened);
  return opened;
};
const comment = (boardId: number, content: string) => e2e.ok<number>('POST', '/api/v1/comments', { token: token(COMMENTER), body: { boardId, content } });

beforeAll(async () => {
  sink = await startPushSink();
  e2e = await startE2eSystem('notiflivee2e', {
    services: ['community', 'houses', 'notifications'],
    env: {
      LOG_LEVEL: 'warn',
      OUTBOX_INTERVAL_MS: '500',
      STREAM_HEARTBEAT_MS: '1000',
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: 'mailto:ops@binzip.test',
      PUSH_ENDPOINT_HOSTS: '127.0.0.1',
      PUSH_CA_FILE: sink.caFile,
    },
  });
  for (const [id, nickName] of [
    [MEMBER, '스트림회원'],
    [COMMENTER, '댓글러'],
    [AGENT, '중개사'],
  ] as const)
    await e2e.publishUser({ id, nick_name: nickName, version: 1 });
});

afterAll(async () => {
  streams.forEach((s) => s.close());
  await e2e?.stop();
  await sink?.stop();
});

it('a ticket opens the stream through the gateway; a comment notice and a listing match arrive on it; heartbeats pass', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: token(MEMBER),
    body: { title: '스트림 글', code: '<p>알려 주세요</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const savedSearchId = await e2e.ok<number>('POST', '/api/v1/saved-searches', {
    token: token(MEMBER),
    body: { name: '전라 전세', province: '전라', rentalType: 'JEONSE' },
  });

  const { ticket } = await e2e.ok<{ ticket: string }>('POST', '/api/v1/notifications/stream/ticket', { token: token(MEMBER) });
  const live = stream(`?ticket=${encodeURIComponent(ticket)}`);
  await eventually(() => live.status() === 200 && live.body().includes('retry:'), 10_000);

  await comment(boardId, '스트림으로 오나요');
  const [first] = await eventually(() => (live.notifications().length >= 1 ? live.notifications() : undefined), 5_000);
  expect(item(first)).toMatchObject({ kind: 'COMMENT', board_id: boardId, comment: '스트림으로 오나요', status: false });
  expect(first.id).toBe(String(item(first).notification_id));

  // An agent's listing is public at once: the member's saved search matches it.
  const houseId = await e2e.ok<number>('POST', '/api/v1/houses', { token: token(AGENT, 'AGENT'), body: sampleListing('담양 한옥 전세') });
  await eventually(() => live.notifications().length >= 2, 10_000);
  expect(item(live.notifications()[1])).toMatchObject({
    kind: 'LISTING_MATCH',
    house_id: houseId,
    house_title: '담양 한옥 전세',
    saved_search_id: savedSearchId,
  });

  // Heartbeats reach the client through the gateway (its 10 s answer timeout does not end an idle stream).
  const pings = live.events.filter((e) => e.comment === 'ping').length;
  await eventually(() => live.events.filter((e) => e.comment === 'ping').length >= pings + 2, 5_000);
  await new Promise((r) => setTimeout(r, 11_000));
  expect(live.closed()).toBe(false);
  expect(live.notifications()).toHaveLength(2);

  // The ticket was single-use: the same one is refused through the gateway too.
  const again = stream(`?ticket=${encodeURIComponent(ticket)}`);
  await eventually(() => again.status() === 401, 5_000);
  expect(JSON.parse(again.body())).toMatchObject({ code: 'J0004' });
  live.close();
});

it('a reconnect through the gateway with Last-Event-ID gets what it missed, in order, nothing twice', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: token(MEMBER),
    body: { title: '다시 잇기', code: '<p>놓친 것</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const live = stream('', { Authorization: token(MEMBER) });
  await eventually(() => live.status() === 200, 10_000);
  await comment(boardId, '끊기 전');
  const [seen] = await eventually(() => (live.notifications().length === 1 ? live.notifications() : undefined), 5_000);
  live.close();

  const missed = ['끊긴 동안 1', '끊긴 동안 2', '끊긴 동안 3'];
  for (const content of missed) await comment(boardId, content);
  const feedOf = async () =>
    (
      await e2e.ok<{ notifications: { content: Array<{ notification_id: number; comment?: string }> } }>('GET', '/api/v1/notifications/feed?size=50', {
        token: token(MEMBER),
      })
    ).notifications.content;
  await eventually(async () => (await feedOf()).filter((n) => missed.includes(n.comment ?? '')).length === missed.length, 10_000);

  const resumed = stream('', { Authorization: token(MEMBER), 'Last-Event-ID': seen.id ?? '' });
  await eventually(() => resumed.notifications().length >= missed.length, 5_000);
  // A notice written after the reconnect follows the replayed ones on the same stream.
  await comment(boardId, '다시 이은 뒤');
  await eventually(() => resumed.notifications().length >= missed.length + 1, 5_000);
  await new Promise((r) => setTimeout(r, 1_500));
  const received = resumed.notifications().map(item);
  expect(received.map((n) => n.comment)).toEqual([...missed, '다시 이은 뒤']);
  const ids = received.map((n) => n.notification_id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(ids.every((id) => id > Number(seen.id))).toBe(true);
  resumed.close();
});

it('Web Push through the gateway: the key, a device subscribed, the next notice pushed to it, nothing after unsubscribing', async () => {
  expect(await e2e.ok('GET', '/api/v1/notifications/push/key', { token: token(MEMBER) })).toEqual({ publicKey: vapid.publicKey });
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: token(MEMBER),
    body: { title: '푸시 받기', code: '<p>알림</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const device = sink.subscribe();
  expect(await e2e.ok('POST', '/api/v1/notifications/push/subscriptions', { token: token(MEMBER), body: device })).toBe(device.endpoint);
  const refused = await e2e.api('POST', '/api/v1/notifications/push/subscriptions', {
    token: token(MEMBER),
    body: { ...device, endpoint: 'https://push.example.com/send/1' },
  });
  expect(refused.body).toEqual({ code: 'C0002', message: '푸시 주소 값이 이 서버가 보내는 푸시 서비스의 https 주소가 아닙니다.' });

  await comment(boardId, '푸시로 오나요');
  const [pushed] = await eventually(() => {
    const to = sink.received.filter((r) => r.endpoint === device.endpoint);
    return to.length > 0 ? to : undefined;
  }, 10_000);
  expect(JSON.parse(pushed.payload)).toMatchObject({
    kind: 'COMMENT',
    board_id: boardId,
    comment: '푸시로 오나요',
    comment_user: '댓글러',
    nick_name: '스트림회원',
  });
  expect(pushed.vapid).toMatchObject({ k: vapid.publicKey, sub: 'mailto:ops@binzip.test' });

  expect(await e2e.ok('DELETE', '/api/v1/notifications/push/subscriptions', { token: token(MEMBER), body: { endpoint: device.endpoint } })).toBe(
    device.endpoint,
  );
  const again = await e2e.api('DELETE', '/api/v1/notifications/push/subscriptions', { token: token(MEMBER), body: { endpoint: device.endpoint } });
  expect(again.body.code).toBe('C0001');
  await comment(boardId, '이제는 안 와요');
  await eventually(async () => {
    const feed = await e2e.ok<{ notifications: { content: Array<{ comment?: string }> } }>('GET', '/api/v1/notifications/feed?size=5', {
      token: token(MEMBER),
    });
    return feed.notifications.content.some((n) => n.comment === '이제는 안 와요');
  }, 10_000);
  await new Promise((r) => setTimeout(r, 1_000));
  expect(sink.received.filter((r) => r.endpoint === device.endpoint)).toHaveLength(1);
});
