import { cacheChangedSubject, ResponseCache, startConsumers, withCacheChanges, type EventBus, type RunningConsumer } from '@binzip/shared';
import { communityCommentCreated, type CommunityCommentCreatedV1 } from '@binzip/events';
import type { Express } from 'express';
import request from 'supertest';
import { bearer, eventually } from '../../../test/support';
import { addMember, cachedInstance, startServiceHarness, type ServiceHarness } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { notifyAboutComment } from '../src/domain/comment-notices';
import { notificationsConsumers } from '../src/events';
import { initModels, notificationsModels, type NotificationsModels } from '../src/models';
import { boardNoticeMaker } from './helpers';
import { INBOX_ANSWERS } from '../src/cache-keys';

/**
 * A member's notification list, kept per member (src/cache-keys.ts), on two instances of the service with
 * their own caches on the real NATS, as main.ts builds them, over one real MongoDB-protocol store; the first one
 * runs the consumers. "Kept" is shown by storing a notice behind the service's back (`sneak`): only the cache can
 * still show the inbox without it.
 */

let h: ServiceHarness<NotificationsModels>;
let bus: EventBus;
const caches: ResponseCache[] = [];
let first: Express;
let second: Express;
let consumers: RunningConsumer;

const ANN = 301;
const BEN = 302;
const COMMENTER = 303;
const boardNotice = boardNoticeMaker(
  { targetId: 9, targetTitle: '캐시 글', commenterId: COMMENTER, commenterNickName: 'commenter', concernedUserIds: [] },
  7_000,
);
const notice = (recipientId: number) => boardNotice({ concernedUserIds: [recipientId] });
/** Comment ids of the events this file publishes (apart from the notices'). */
let eventSeq = 8_000;

/** Stores a notice without telling any cache. */
const sneak = async (recipientId: number): Promise<string> => {
  const stored = notice(recipientId);
  await notifyAboutComment(h.ctx, stored);
  return stored.content;
};

const inbox = async (app: Express, userId: number): Promise<string[]> => {
  const res = await request(app).get('/api/v1/notifications').set('Authorization', bearer({ userId }));
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data.notifications.content as Array<{ comment: string }>).map((n) => n.comment);
};

/** Waits until every announcement made so far has reached every subscription (the instances share the connection). */
const delivered = () => bus.connection.flush();

beforeAll(async () => {
  h = await startServiceHarness('notifcache', { models: notificationsModels, initModels, buildApp });
  for (const [id, name] of [
    [ANN, 'ann'],
    [BEN, 'ben'],
    [COMMENTER, 'commenter'],
  ] as const)
    await addMember(h.connection, name, { id });
  bus = await h.bus();
  const instance = () => {
    const { app, cache } = cachedInstance(h, { buildApp }, bus, 'notifications');
    caches.push(cache);
    return app;
  };
  first = instance();
  second = instance();
  consumers = await startConsumers(bus, withCacheChanges(notificationsConsumers(h.ctx, { EVENT_MAX_DELIVER: 5, EVENT_BACKOFF_MS: [1_000] }), caches[0]));
  await bus.connection.flush();
});

afterAll(async () => {
  await consumers?.stop();
  caches.forEach((cache) => cache.stop());
  await h.close();
});

// Every test starts with empty caches: whatever an earlier test kept has expired.
beforeEach(() => h.clock.advance(INBOX_ANSWERS.ttlMs));

it("keeps each member's list for him alone, with a private ETag, until its TTL", async () => {
  const annFirst = await sneak(ANN);
  const benFirst = await sneak(BEN);
  expect(await inbox(first, ANN)).toContain(annFirst);
  const kept = await request(first)
    .get('/api/v1/notifications')
    .set('Authorization', bearer({ userId: ANN }));
  expect(kept.headers['cache-control']).toBe('private, no-cache');
  const annLater = await sneak(ANN);

  expect(await inbox(first, ANN)).not.toContain(annLater);
  const ben = await inbox(first, BEN);
  expect(ben).toContain(benFirst);
  expect(ben).not.toContain(annFirst);
  expect(
    (
      await request(first)
        .get('/api/v1/notifications')
        .set('Authorization', bearer({ userId: ANN }))
        .set('If-None-Match', kept.headers.etag)
    ).status,
  ).toBe(304);

  h.clock.advance(INBOX_ANSWERS.ttlMs);
  expect(await inbox(first, ANN)).toContain(annLater);
});

it("a notice stored by the consumer forgets its recipient's list on every instance at once, and keeps the others'", async () => {
  for (const app of [first, second]) {
    await inbox(app, ANN);
    await inbox(app, BEN);
  }
  const benLater = await sneak(BEN);
  const event: CommunityCommentCreatedV1 = {
    v: 1,
    eventId: `cache-event-${++eventSeq}`,
    boardId: 9,
    boardTitle: '캐시 글',
    boardAuthorId: ANN,
    commentId: eventSeq,
    commenterId: COMMENTER,
    commenterNickName: 'commenter',
    content: `이벤트 댓글 ${eventSeq}`,
    occurredAt: new Date().toISOString(),
  };

  await bus.publish(communityCommentCreated.subject, event, event.eventId);

  // The clock stands still: only the consumer's change can show the new notice.
  await eventually(async () => (await inbox(first, ANN)).includes(event.content));
  await eventually(async () => (await inbox(second, ANN)).includes(event.content));
  await delivered();
  expect(await inbox(second, BEN)).not.toContain(benLater);
  expect(await inbox(first, BEN)).not.toContain(benLater);
});

it("marking a notification read forgets the reader's list here and on the other instance, and keeps the others'", async () => {
  await sneak(ANN);
  const res = await request(first)
    .get('/api/v1/notifications')
    .set('Authorization', bearer({ userId: ANN }));
  const newest = res.body.data.notifications.content[0] as { notification_id: number; status: boolean };
  expect(newest.status).toBe(false);
  await inbox(second, ANN);
  await inbox(second, BEN);
  const benLater = await sneak(BEN);

  const read = await request(first)
    .put(`/api/v1/notifications/${newest.notification_id}`)
    .set('Authorization', bearer({ userId: ANN }));
  expect(read.status).toBe(200);

  const statusOn = async (app: Express) =>
    (
      (
        await request(app)
          .get('/api/v1/notifications')
          .set('Authorization', bearer({ userId: ANN }))
      ).body.data.notifications.content[0] as { status: boolean }
    ).status;
  expect(await statusOn(first)).toBe(true);
  await eventually(async () => (await statusOn(second)) === true);
  await delivered();
  expect(await inbox(second, BEN)).not.toContain(benLater);

  // Someone else's notification is refused, and forgets nothing.
  const refused = await request(second)
    .put(`/api/v1/notifications/${newest.notification_id}`)
    .set('Authorization', bearer({ userId: BEN }));
  expect(refused.status).toBe(403);
  await delivered();
  expect(await inbox(second, BEN)).not.toContain(benLater);
});

it("an announcement without keys (the user projection: a nickname changed) forgets every member's list", async () => {
  await inbox(first, ANN);
  await inbox(second, BEN);
  const annLater = await sneak(ANN);
  const benLater = await sneak(BEN);

  bus.connection.publish(bus.subject(cacheChangedSubject('notifications')));
  await delivered();

  expect(await inbox(first, ANN)).toContain(annLater);
  expect(await inbox(second, BEN)).toContain(benLater);
});
