import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, type TestPerson } from '../../../test/support/service';
import { commentModel } from '../src/models';
import { approveBy, createRecord, type RecordsHarness, startRecordsHarness } from './helpers';

let h: RecordsHarness;
let author: TestPerson;
let peer: TestPerson;
let alice: TestPerson;
let bob: TestPerson;
let recordId: number;

beforeAll(async () => {
  h = await startRecordsHarness('comments');
  author = await addAdmin(h.connection, '작성자', { id: 1, userType: 'WEB' });
  peer = await addAdmin(h.connection, '동료', { id: 2, userType: 'WEB' });
  alice = await addMember(h.connection, '앨리스', { id: 3 });
  bob = await addMember(h.connection, '밥', { id: 4 });
  recordId = await createRecord(h, author, { part: 'web', title: '댓글 달린 글' });
  await approveBy(h, recordId, [peer]);
});
afterAll(async () => h.close());

async function comment(by: TestPerson, content: string, parentId: number | null = null, record = recordId): Promise<number> {
  const res = await request(h.app).post('/api/v1/record_comment').set('Authorization', by.token).send({ record_id: record, parent_id: parentId, content });
  if (res.status !== 200) throw new Error(`comment failed: ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

const commentPage = async (record: number, page = 0) => (await request(h.app).get(`/api/v1/record/${record}?page=${page}`)).body.data.comments;

test('threaded order across depths: each reply right after its parent’s thread, siblings oldest first, 10 a page', async () => {
  const record = await createRecord(h, author, { part: 'web' });
  await approveBy(h, record, [peer]);
  const c1 = await comment(alice, 'c1', null, record);
  const c2 = await comment(bob, 'c2', null, record);
  const r1 = await comment(bob, 'r1', c1, record);
  await comment(alice, 'r2', c1, record);
  const rr1 = await comment(alice, 'rr1', r1, record);
  await comment(alice, 'c3', null, record);
  await comment(alice, 'r3', c2, record);
  await comment(bob, 'rrr', rr1, record);
  for (let i = 4; i <= 8; i++) await comment(bob, `c${i}`, null, record);
  await comment(bob, 'r4', c1, record);

  const first = await commentPage(record, 0);
  const second = await commentPage(record, 1);
  const order = [...first.content, ...second.content].map((c: { content: string; level: number }) => `${c.content}:${c.level}`);
  expect(order).toEqual(['c1:1', 'r1:2', 'rr1:3', 'rrr:4', 'r2:2', 'r4:2', 'c2:1', 'r3:2', 'c3:1', 'c4:1', 'c5:1', 'c6:1', 'c7:1', 'c8:1']);
  expect(first).toMatchObject({ size: 10, number: 0, numberOfElements: 10, totalElements: 14, totalPages: 2, first: true, last: false });
  expect(first.pageable).toMatchObject({ offset: 0, pageSize: 10, pageNumber: 0 });
  expect(second).toMatchObject({ number: 1, numberOfElements: 4, last: true });
  expect(first.content[0]).toEqual({ comment_id: c1, level: 1, content: 'c1', nick_name: '앨리스', create_at: '03.05.2024' });
});

test('a reply to a comment of another record, or to an unknown one, is 404', async () => {
  const other = await createRecord(h, author, { part: 'web' });
  await approveBy(h, other, [peer]);
  const foreign = await comment(alice, 'elsewhere', null, other);
  const res = await request(h.app)
    .post('/api/v1/record_comment')
    .set('Authorization', bob.token)
    .send({ record_id: recordId, parent_id: foreign, content: 'x' });
  expectError(res, 404, 'C0001');
  const unknown = await request(h.app)
    .post('/api/v1/record_comment')
    .set('Authorization', bob.token)
    .send({ record_id: 999999, parent_id: null, content: 'x' });
  expect(unknown.body.code).toBe('C0001');
});

test('comments need a signed-in user; a record in review takes comments from administrators only', async () => {
  const anonymous = await request(h.app).post('/api/v1/record_comment').send({ record_id: recordId, parent_id: null, content: 'x' });
  expect(anonymous.status).toBe(401);
  const inReview = await createRecord(h, author, { part: 'web' });
  const byMember = await request(h.app)
    .post('/api/v1/record_comment')
    .set('Authorization', alice.token)
    .send({ record_id: inReview, parent_id: null, content: 'x' });
  expect(byMember.status).toBe(404);
  const byPeer = await request(h.app).post('/api/v1/record_comment').set('Authorization', peer.token).send({ record_id: inReview, content: '검토 의견' });
  expect(byPeer.status).toBe(200);
});

test('edit by the author only; delete by the author or an administrator, soft, replies stay', async () => {
  const top = await comment(alice, '원래 댓글');
  const reply = await comment(bob, '답글', top);
  const notMine = await request(h.app).put(`/api/v1/record_comment/${top}`).set('Authorization', bob.token).send({ content: '남의 것' });
  expectError(notMine, 403, 'C0003');
  const adminEdit = await request(h.app).put(`/api/v1/record_comment/${top}`).set('Authorization', author.token).send({ content: '관리자 수정' });
  expect(adminEdit.status).toBe(403);
  const edit = await request(h.app).put(`/api/v1/record_comment/${top}`).set('Authorization', alice.token).send({ content: '고친 댓글' });
  expect(edit.body).toEqual({ code: 'SUCCESS', message: '성공', data: top });

  expect((await request(h.app).delete(`/api/v1/record_comment/${reply}`).set('Authorization', alice.token)).status).toBe(403);
  expect((await request(h.app).delete(`/api/v1/record_comment/${top}`).set('Authorization', alice.token)).body).toEqual({ code: 'SUCCESS', message: '성공' });
  expect((await request(h.app).delete(`/api/v1/record_comment/${reply}`).set('Authorization', author.token)).status).toBe(200);

  const page = await commentPage(recordId);
  const byId = new Map(page.content.map((c: { comment_id: number }) => [c.comment_id, c]));
  expect(byId.get(top)).toMatchObject({ content: '삭제된 댓글입니다.', level: 1 });
  expect(byId.get(reply)).toMatchObject({ content: '삭제된 댓글입니다.', level: 2 });

  for (const res of [
    await request(h.app).delete(`/api/v1/record_comment/${top}`).set('Authorization', alice.token),
    await request(h.app).put(`/api/v1/record_comment/${top}`).set('Authorization', alice.token).send({ content: '부활' }),
    await request(h.app)
      .post('/api/v1/record_comment')
      .set('Authorization', bob.token)
      .send({ record_id: recordId, parent_id: top, content: '삭제된 글에 답글' }),
    await request(h.app).delete('/api/v1/record_comment/999999').set('Authorization', alice.token),
  ]) {
    expectError(res, 404, 'C0001');
  }
});

test('each saved comment stores its records.comment.created event in the same document', async () => {
  const before = h.outboxKicks.count;
  const top = await comment(alice, '알림 가는 댓글');
  const reply = await comment(author, '작성자 답글', top);
  expect(h.outboxKicks.count).toBe(before + 2);
  const docs = await commentModel(h.connection)
    .find({ _id: { $in: [top, reply] } })
    .sort({ _id: 1 })
    .lean();
  expect(docs.map((d) => d.pendingEvents.length)).toEqual([1, 1]);
  expect(docs[0].pendingEvents[0]).toMatchObject({
    subject: 'records.comment.created',
    data: {
      v: 1,
      recordId,
      recordTitle: '댓글 달린 글',
      recordAuthorId: author.id,
      parentCommentAuthorId: null,
      commentId: top,
      commenterId: alice.id,
      commenterNickName: '앨리스',
      content: '알림 가는 댓글',
    },
  });
  expect(docs[1].pendingEvents[0].data).toMatchObject({ parentCommentAuthorId: alice.id, commenterId: author.id, commentId: reply });
  expect(docs[1].pendingEvents[0].id).toBe((docs[1].pendingEvents[0].data as { eventId: string }).eventId);
});

test("an administrator deleting someone else's comment stores its audit entry with the reason; a reason over 500 characters is C0002", async () => {
  const target = await comment(alice, '광고 댓글');
  const tooLong = await request(h.app)
    .delete(`/api/v1/record_comment/${target}?reason=${'가'.repeat(501)}`)
    .set('Authorization', author.token);
  expectError(tooLong, 400, 'C0002');
  expect(tooLong.body.message).toContain('삭제 사유');
  const res = await request(h.app)
    .delete(`/api/v1/record_comment/${target}?reason=${encodeURIComponent('광고 글입니다')}`)
    .set('Authorization', author.token);
  expect(res.status).toBe(200);
  const doc = await commentModel(h.connection).findById(target).lean();
  expect(doc?.pendingEvents.filter((e) => e.subject === 'audit.records').map((e) => e.data)).toEqual([
    expect.objectContaining({
      actorId: author.id,
      action: 'DELETE_COMMENT',
      targetType: 'RECORD',
      targetId: recordId,
      memberId: alice.id,
      reason: '광고 글입니다',
    }),
  ]);
});
