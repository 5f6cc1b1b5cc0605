import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { bearer } from '../../../test/support';
import { addMember, startServiceHarness, updatePerson, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { notifyAboutComment, recipientsOf } from '../src/domain/comment-notices';
import { initModels, notificationModel, notificationsModels, type NotificationsModels } from '../src/models';
import { boardNoticeMaker } from './helpers';

let h: ServiceHarness<NotificationsModels>;
let connection: Connection;
let app: Express;
let alice: TestPerson;
let bob: TestPerson;

const ALICE = 101;
const BOB = 102;
const CAROL = 103;
const boardNotice = boardNoticeMaker(
  { targetId: 7, targetTitle: '빈집 고쳐 살기', commenterId: BOB, commenterNickName: 'bobAtCommentTime', concernedUserIds: [ALICE] },
  1000,
);

const rename = (person: TestPerson, nickName: string) => updatePerson(connection, person, { nick_name: nickName });

const list = (userId: number, query: Record<string, string> = {}) =>
  request(app).get('/api/v1/notifications').query(query).set('Authorization', bearer({ userId }));

const mark = (userId: number, id: number | string) => request(app).put(`/api/v1/notifications/${id}`).set('Authorization', bearer({ userId }));

beforeAll(async () => {
  h = await startServiceHarness('notifinbox', { models: notificationsModels, initModels, buildApp });
  ({ connection, app } = h);
  alice = await addMember(connection, 'alice', { id: ALICE });
  bob = await addMember(connection, 'bob', { id: BOB });
});

afterAll(() => h.close());

describe('recipients of a comment', () => {
  it('notifies the board author, never the commenter', () => {
    expect(recipientsOf(boardNotice({ concernedUserIds: [ALICE], commenterId: BOB }))).toEqual([ALICE]);
    expect(recipientsOf(boardNotice({ concernedUserIds: [ALICE], commenterId: ALICE }))).toEqual([]);
  });

  it('notifies record author and parent comment author once each, and once when they are the same user', () => {
    const reply = { ...boardNotice(), kind: 'record' as const, commenterId: CAROL };
    expect(recipientsOf({ ...reply, concernedUserIds: [ALICE, BOB] }).sort()).toEqual([ALICE, BOB]);
    expect(recipientsOf({ ...reply, concernedUserIds: [ALICE, ALICE] })).toEqual([ALICE]);
    expect(recipientsOf({ ...reply, concernedUserIds: [ALICE, null] })).toEqual([ALICE]);
    expect(recipientsOf({ ...reply, concernedUserIds: [CAROL, BOB] })).toEqual([BOB]);
  });

  it('stores one notification per comment and recipient however often the comment is handled', async () => {
    const notice = boardNotice({ commenterId: CAROL, concernedUserIds: [BOB, BOB] });
    expect(await notifyAboutComment(h.ctx, notice)).toBe(1);
    expect(await notifyAboutComment(h.ctx, notice)).toBe(0);
    await Promise.all([notifyAboutComment(h.ctx, notice), notifyAboutComment(h.ctx, { ...notice, eventId: 'another-publish' })]);
    expect(await notificationModel(connection).countDocuments({ kind: 'board', commentId: notice.commentId }).exec()).toBe(1);
    // The same comment id in the other area is a different comment.
    expect(await notifyAboutComment(h.ctx, { ...notice, kind: 'record' })).toBe(1);
    await notificationModel(connection).deleteMany({ commentId: notice.commentId }).exec();
  });
});

describe('GET /api/v1/notifications', () => {
  const ids: number[] = [];

  beforeAll(async () => {
    // 23 for alice, interleaved with notifications of another user that must never show up in hers.
    for (let i = 0; i < 23; i++) {
      await notifyAboutComment(h.ctx, boardNotice({ targetId: 500 + i, targetTitle: `글 ${i}`, content: `내용 ${i}` }));
      if (i % 4 === 0) await notifyAboutComment(h.ctx, boardNotice({ commenterId: ALICE, concernedUserIds: [BOB] }));
    }
    const docs = await notificationModel(connection).find({ recipientId: ALICE }).sort({ _id: -1 }).lean().exec();
    ids.push(...docs.map((d) => d._id));
    expect(ids).toHaveLength(23);
  });

  it('needs a token', async () => {
    const res = await request(app).get('/api/v1/notifications');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'J0000', message: '권한 정보가 없는 토큰입니다.' });
    const bad = await request(app).get('/api/v1/notifications').set('Authorization', 'Bearer not.a.jwt');
    expect(bad.status).toBe(401);
  });

  it('answers the first page: newest first, size 5, a page without totals but with pageable', async () => {
    const res = await list(ALICE);
    expect(res.status).toBe(200);
    expect(res.body.code).toBe('SUCCESS');
    expect(res.body.message).toBe('성공');
    const { nextId, notifications } = res.body.data;
    expect(notifications.content.map((n: { notification_id: number }) => n.notification_id)).toEqual(ids.slice(0, 5));
    expect(nextId).toBe(ids[4]);
    expect(notifications).not.toHaveProperty('totalElements');
    expect(notifications).not.toHaveProperty('totalPages');
    expect(notifications).toMatchObject({
      size: 5,
      number: 0,
      first: true,
      last: false,
      numberOfElements: 5,
      empty: false,
      sort: { empty: false, unsorted: false, sorted: true },
      pageable: { pageSize: 5, pageNumber: 0, offset: 0, paged: true, unpaged: false, sort: { sorted: true } },
    });
  });

  it('renders each item in snake_case with the type and the nicknames', async () => {
    const res = await list(ALICE, { size: '1' });
    const item = res.body.data.notifications.content[0];
    expect(item).toEqual({
      notification_id: ids[0],
      nick_name: 'alice',
      board_id: 522,
      board_title: '글 22',
      status: false,
      comment: '내용 22',
      comment_user: 'bob',
      type: 'board',
    });
    // Exactly the spec's members in the spec's order, plus decisions.md's type: no timestamp member.
    expect(Object.keys(item)).toEqual(['notification_id', 'nick_name', 'board_id', 'board_title', 'status', 'comment', 'comment_user', 'type']);
    expect(Object.keys(res.body.data)).toEqual(['nextId', 'notifications']);
  });

  it('shows nickname changes at read time and falls back when a user is unknown', async () => {
    await rename(alice, 'aliceRenamed');
    await rename(bob, 'bobRenamed');
    const item = (await list(ALICE, { size: '1' })).body.data.notifications.content[0];
    expect(item.nick_name).toBe('aliceRenamed');
    expect(item.comment_user).toBe('bobRenamed');
    await rename(alice, 'alice');
    await rename(bob, 'bob');

    const stranger = 9_999;
    await notifyAboutComment(h.ctx, boardNotice({ concernedUserIds: [stranger], commenterId: 9_998, commenterNickName: 'oldNick' }));
    const unknown = (await list(stranger)).body.data.notifications.content[0];
    expect(unknown.nick_name).toBe('알 수 없음');
    expect(unknown.comment_user).toBe('oldNick');
  });

  it('walks all 23 with the id cursor, each once, ending with a short last page and a null nextId after it', async () => {
    const seen: number[] = [];
    let cursor: number | null | undefined;
    let pages = 0;
    for (;;) {
      const res = await list(ALICE, cursor === undefined ? { id: '' } : { id: String(cursor) });
      expect(res.status).toBe(200);
      const { nextId, notifications } = res.body.data;
      pages++;
      const pageIds = notifications.content.map((n: { notification_id: number }) => n.notification_id);
      seen.push(...pageIds);
      if (notifications.last) {
        expect(pageIds).toHaveLength(3);
        expect(nextId).toBe(pageIds[2]);
        break;
      }
      expect(pageIds).toHaveLength(5);
      expect(nextId).toBe(pageIds[4]);
      cursor = nextId;
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(ids);

    const after = await list(ALICE, { id: String(ids[22]) });
    expect(after.body.data.nextId).toBeNull();
    expect(after.body.data.notifications).toMatchObject({ content: [], empty: true, last: true, numberOfElements: 0 });
  });

  it('takes a size up to 50, and reads a larger one as 50', async () => {
    for (const size of ['50', '51', '1000']) {
      const res = await list(ALICE, { size });
      expect(res.body.data.notifications.content).toHaveLength(23);
      expect(res.body.data.notifications.last).toBe(true);
      expect(res.body.data.notifications.size).toBe(50);
    }
  });

  it.each([
    ['read', 'maybe'],
    ['id', 'abc'],
    ['id', '-3'],
    ['id', '0'],
    ['id', '1.5'],
    ['id', '9'.repeat(40)],
    ['size', '0'],
    ['size', '-1'],
    ['size', 'x'.repeat(5000)],
  ])('rejects a bad %s with C0002 (%#)', async (key, value) => {
    const res = await list(ALICE, { [key]: value });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('C0002');
    expect(res.body).not.toHaveProperty('data');
  });

  it('rejects a repeated parameter with C0002', async () => {
    const res = await request(app)
      .get('/api/v1/notifications?read=true&read=false')
      .set('Authorization', bearer({ userId: ALICE }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('C0002');
  });

  it('gives another user only their own inbox', async () => {
    const res = await list(BOB, { size: '50' });
    const content = res.body.data.notifications.content as Array<{ notification_id: number; nick_name: string }>;
    expect(content).toHaveLength(6);
    expect(content.some((n) => ids.includes(n.notification_id))).toBe(false);
    expect(content.every((n) => n.nick_name === 'bob')).toBe(true);
    const empty = await list(4_242);
    expect(empty.body.data).toMatchObject({ nextId: null, notifications: { content: [], empty: true, first: true, last: true } });
  });
});

describe('PUT /api/v1/notifications/{id} and the read filter', () => {
  let ids: number[];

  beforeAll(async () => {
    const docs = await notificationModel(connection).find({ recipientId: ALICE }).sort({ _id: -1 }).lean().exec();
    ids = docs.map((d) => d._id);
  });

  it('lets only the recipient mark a notification read', async () => {
    const target = ids[3];
    const other = await mark(BOB, target);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ code: 'C0003', message: '해당 요청에 대한 권한이 없습니다.' });
    expect((await notificationModel(connection).findById(target).lean().exec())?.read).toBe(false);

    const anonymous = await request(app).put(`/api/v1/notifications/${target}`);
    expect(anonymous.status).toBe(401);

    const own = await mark(ALICE, target);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ code: 'SUCCESS', message: '성공', data: target });
    expect((await notificationModel(connection).findById(target).lean().exec())?.read).toBe(true);
    // Marking again changes nothing and still succeeds.
    expect((await mark(ALICE, target)).body.data).toBe(target);
  });

  it('answers C0001 for an unknown id and C0002 for a malformed one', async () => {
    const unknown = await mark(ALICE, 987_654_321);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('C0001');
    for (const bad of ['abc', '0', '-1', '1e3', '9'.repeat(30)]) {
      const res = await mark(ALICE, bad);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('C0002');
    }
    const junkBody = await request(app)
      .put(`/api/v1/notifications/${ids[0]}`)
      .set('Authorization', bearer({ userId: ALICE }))
      .set('Content-Type', 'application/json')
      .send('{"status": tru');
    expect(junkBody.status).toBe(400);
    expect(junkBody.body.code).toBe('C0002');
    expect((await notificationModel(connection).findById(ids[0]).lean().exec())?.read).toBe(false);
  });

  it('filters by read flag, with the cursor working inside the filter', async () => {
    const readIds = [ids[3], ids[8], ids[9], ids[15], ids[22]] as number[];
    for (const id of readIds) await mark(ALICE, id);

    const onlyRead = await list(ALICE, { read: 'true', size: '50' });
    const readItems = onlyRead.body.data.notifications.content as Array<{ notification_id: number; status: boolean }>;
    expect(readItems.map((n) => n.notification_id)).toEqual(readIds);
    expect(readItems.every((n) => n.status)).toBe(true);

    const unread: number[] = [];
    let cursor = '';
    for (;;) {
      const res = await list(ALICE, { read: 'false', id: cursor });
      const page = res.body.data.notifications;
      unread.push(
        ...page.content.map((n: { notification_id: number; status: boolean }) => {
          expect(n.status).toBe(false);
          return n.notification_id;
        }),
      );
      if (page.last) break;
      cursor = String(res.body.data.nextId);
    }
    expect(unread).toEqual(ids.filter((id) => !readIds.includes(id)));

    const all = await list(ALICE, { read: '', size: '50' });
    expect(all.body.data.notifications.content).toHaveLength(23);
  });
});

it('answers unknown routes under the prefix with C0001', async () => {
  const res = await request(app)
    .delete('/api/v1/notifications/1')
    .set('Authorization', bearer({ userId: ALICE }));
  expect(res.status).toBe(404);
  expect(res.body.code).toBe('C0001');
});
