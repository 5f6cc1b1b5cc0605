import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, addPerson, type TestPerson } from '../../../test/support/service';
import { recordsModels } from '../src/models';
import { createRecord, type RecordsHarness, review, startRecordsHarness } from './helpers';

let h: RecordsHarness;
let author: TestPerson; // WEB
let webB: TestPerson; // WEB reviewer
let webC: TestPerson; // WEB reviewer
let server: TestPerson; // the only SERVER admin
let reader: TestPerson;

beforeAll(async () => {
  h = await startRecordsHarness('reviews');
  author = await addAdmin(h.connection, '작성자', { id: 1, userType: 'WEB' });
  webB = await addAdmin(h.connection, '리뷰어비', { id: 2, userType: 'WEB' });
  webC = await addAdmin(h.connection, '리뷰어씨', { id: 3, userType: 'WEB' });
  server = await addAdmin(h.connection, '서버관리자', { id: 4, userType: 'SERVER' });
  reader = await addMember(h.connection, '독자', { id: 5 });
  await addPerson(h.connection, '탈퇴관리자', { id: 6, admin: true, userType: 'WEB', snapshot: { status: 'WITHDRAWAL_REQUESTED' } });
  await addPerson(h.connection, '웹일반', { id: 7, userType: 'WEB' });
});
afterAll(async () => h.close());

const ids = (res: request.Response): number[] => res.body.data.records.content.map((r: { record_id: number }) => r.record_id);
const reviewee = (u: TestPerson, status: string) => request(h.app).get(`/api/v1/record/reviewee?status=${status}`).set('Authorization', u.token);
const reviewer = (u: TestPerson, status: string) => request(h.app).get(`/api/v1/record/reviewer?status=${status}`).set('Authorization', u.token);
const reviewView = (u: TestPerson, id: number) => request(h.app).get(`/api/v1/record/review/${id}`).set('Authorization', u.token);
const editReview = (u: TestPerson, reviewId: number, status: string, content = '수정') =>
  request(h.app).put(`/api/v1/record_review/${reviewId}`).set('Authorization', u.token).send({ content, status });
const dropReview = (u: TestPerson, reviewId: number) => request(h.app).delete(`/api/v1/record_review/${reviewId}`).set('Authorization', u.token);
const publicIds = async () => ids(await request(h.app).get('/api/v1/record/all/all?size=50'));

test('the full review flow: two WEB reviewers, unanimous approval, R0000 once settled', async () => {
  const id = await createRecord(h, author, { part: 'web', title: '웹 장애' });

  // Reviewers are the other active WEB administrators only.
  const initial = await reviewView(author, id);
  expect(initial.status).toBe(200);
  expect(initial.body.data).toEqual({
    record_id: id,
    title: '웹 장애',
    content: expect.any(String),
    hits: 0,
    part: 'web',
    nick_name: '작성자',
    create_at: '03.05.2024',
    reviews: [],
    reviewers: [
      { status: 'wait', nick_name: '리뷰어비' },
      { status: 'wait', nick_name: '리뷰어씨' },
    ],
  });
  expect(ids(await reviewee(author, 'wait'))).toEqual([id]);
  expect(ids(await reviewer(webB, 'wait'))).toEqual([id]);
  expect(ids(await reviewer(webC, 'wait'))).toEqual([id]);
  expect(ids(await reviewer(server, 'wait'))).toEqual([]);
  expect(await publicIds()).not.toContain(id);

  // Outsiders and wrong statuses.
  expect((await review(h, server, id, 'approve')).body.code).toBe('C0003');
  expect((await review(h, reader, id, 'approve')).body.code).toBe('J0006');
  expect((await review(h, author, id, 'approve')).body.code).toBe('C0002');
  expect((await review(h, webB, id, 'mine')).body.code).toBe('C0002');

  // B rejects: the record is rejected.
  const rejectRes = await review(h, webB, id, 'reject', '원인 분석이 부족합니다');
  expect(rejectRes.body).toEqual({ code: 'SUCCESS', message: '성공', data: expect.any(Number) });
  const bReview = rejectRes.body.data as number;
  expect(ids(await reviewee(author, 'reject'))).toEqual([id]);
  expect(ids(await reviewee(author, 'wait'))).toEqual([]);
  expect(ids(await reviewer(webB, 'reject'))).toEqual([id]);
  expect(ids(await reviewer(webB, 'wait'))).toEqual([]);

  // The author answers; C may not edit B's review.
  const mine = await review(h, author, id, 'mine', '보강했습니다');
  expect(mine.status).toBe(200);
  expect((await editReview(webC, bReview, 'approve')).status).toBe(403);

  // B changes the verdict to approve; C still waits, so the record waits.
  expect((await editReview(webB, bReview, 'approve', '좋습니다')).body).toEqual({ code: 'SUCCESS', message: '성공', data: bReview });
  expect(ids(await reviewee(author, 'wait'))).toEqual([id]);
  expect(ids(await reviewer(webB, 'approve'))).toEqual([id]);
  expect(await publicIds()).not.toContain(id);

  // An approval is final for its reviewer.
  for (const res of [await review(h, webB, id, 'reject'), await editReview(webB, bReview, 'reject'), await dropReview(webB, bReview)]) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'R0000', message: '이미 승인처리된 글입니다.' });
  }

  // C rejects and withdraws the rejection: back to waiting.
  const cReject = (await review(h, webC, id, 'reject')).body.data as number;
  expect(ids(await reviewee(author, 'reject'))).toEqual([id]);
  expect((await dropReview(webC, cReject)).body).toEqual({ code: 'SUCCESS', message: '성공' });
  expect(ids(await reviewee(author, 'wait'))).toEqual([id]);
  expect(ids(await reviewer(webC, 'wait'))).toEqual([id]);

  // C approves: unanimous, so approved and public.
  expect((await review(h, webC, id, 'approve', '승인')).status).toBe(200);
  expect(ids(await reviewee(author, 'approve'))).toEqual([id]);
  expect(ids(await reviewee(author, 'wait'))).toEqual([]);
  expect(await publicIds()).toContain(id);
  expect((await request(h.app).get('/api/v1/record/hot')).body.data.records.map((r: { record_id: number }) => r.record_id)).toContain(id);

  // Settled: nobody saves, edits or deletes reviews any more.
  const mineId = mine.body.data as number;
  for (const res of [
    await review(h, author, id, 'mine'),
    await editReview(author, mineId, 'mine'),
    await dropReview(author, mineId),
    await review(h, webC, id, 'approve'),
  ]) {
    expect(res.body.code).toBe('R0000');
  }

  const final = await reviewView(server, id);
  expect(final.body.data.reviewers).toEqual([
    { status: 'approve', nick_name: '리뷰어비' },
    { status: 'approve', nick_name: '리뷰어씨' },
  ]);
  expect(final.body.data.reviews).toEqual([
    { review_id: bReview, content: '좋습니다', status: 'approve', nick_name: '리뷰어비', create_at: '03.05.2024' },
    { review_id: mineId, content: '보강했습니다', status: 'mine', nick_name: '작성자', create_at: '03.05.2024' },
    { review_id: expect.any(Number), content: '승인', status: 'approve', nick_name: '리뷰어씨', create_at: '03.05.2024' },
  ]);
  expect(final.body.data).not.toHaveProperty('type');
  expect(final.body.data).not.toHaveProperty('category');
});

test('a record without reviewers (the only SERVER admin) is approved at once', async () => {
  const id = await createRecord(h, server, { part: 'server' });
  expect(await publicIds()).toContain(id);
  expect(ids(await reviewee(server, 'approve'))).toEqual([id]);
  expect((await review(h, server, id, 'mine')).body.code).toBe('R0000');
  expect((await reviewView(server, id)).body.data.reviewers).toEqual([]);
});

test('simultaneous approvals by both reviewers approve the record exactly', async () => {
  const id = await createRecord(h, author, { part: 'web' });
  const [b, c] = await Promise.all([review(h, webB, id, 'approve'), review(h, webC, id, 'approve')]);
  expect([b.status, c.status]).toEqual([200, 200]);
  expect(ids(await reviewee(author, 'approve'))).toContain(id);
  expect((await reviewView(author, id)).body.data.reviewers.map((r: { status: string }) => r.status)).toEqual(['approve', 'approve']);
});

test('one reviewer submitting twice at once: an approval is final, the second approval gets R0000', async () => {
  const id = await createRecord(h, author, { part: 'web' });
  const [first, second] = await Promise.all([review(h, webB, id, 'approve'), review(h, webB, id, 'approve')]);
  expect([first.body.code, second.body.code].sort()).toEqual(['R0000', 'SUCCESS']);
  const view = (await reviewView(author, id)).body.data;
  expect(view.reviews.map((r: { status: string }) => r.status)).toEqual(['approve']);
  expect(view.reviewers).toEqual([
    { status: 'approve', nick_name: '리뷰어비' },
    { status: 'wait', nick_name: '리뷰어씨' },
  ]);
  expect(ids(await reviewee(author, 'wait'))).toContain(id);
});

test('one reviewer approving and rejecting at once ends approved, as if sent one after the other', async () => {
  const id = await createRecord(h, author, { part: 'web' });
  const [approve, reject] = await Promise.all([review(h, webB, id, 'approve'), review(h, webB, id, 'reject')]);
  // Either order is fine, but an approval is final: the approve succeeds and a reject can only precede it.
  expect(approve.body.code).toBe('SUCCESS');
  expect(['SUCCESS', 'R0000']).toContain(reject.body.code);
  const view = (await reviewView(author, id)).body.data;
  expect(view.reviews.filter((r: { status: string }) => r.status === 'approve')).toHaveLength(1);
  expect(view.reviewers[0]).toEqual({ status: 'approve', nick_name: '리뷰어비' });
  expect(ids(await reviewer(webB, 'approve'))).toContain(id);
  expect(ids(await reviewee(author, 'reject'))).not.toContain(id);
});

test('reviewee and reviewer lists: 3 a page, newest first, only the caller’s records', async () => {
  const h2 = await startRecordsHarness('reviewlists');
  try {
    const a = await addAdmin(h2.connection, '에이', { id: 1, userType: 'SERVER' });
    const b = await addAdmin(h2.connection, '비', { id: 2, userType: 'SERVER' });
    const made: number[] = [];
    for (let i = 0; i < 4; i++) {
      h2.clock.set(new Date(Date.UTC(2024, 1, i + 1)));
      made.push(await createRecord(h2, a, { title: `r${i}` }));
    }
    const first = await request(h2.app).get('/api/v1/record/reviewee?status=wait').set('Authorization', a.token);
    expect(ids(first)).toEqual([made[3], made[2], made[1]]);
    expect(first.body.data.records).toMatchObject({ size: 3, totalElements: 4, totalPages: 2, last: false });
    expect(first.body.data.records.content[0]).toEqual({
      record_id: made[3],
      title: 'r3',
      content: expect.any(String),
      nick_name: '에이',
      create_at: '02.04.2024',
      part: 'server',
    });
    const second = await request(h2.app).get('/api/v1/record/reviewer?status=wait&page=1').set('Authorization', b.token);
    expect(ids(second)).toEqual([made[0]]);
    expect(ids(await request(h2.app).get('/api/v1/record/reviewee?status=wait').set('Authorization', b.token))).toEqual([]);
    expect(ids(await request(h2.app).get('/api/v1/record/reviewer?status=wait').set('Authorization', a.token))).toEqual([]);
    const bad = await request(h2.app).get('/api/v1/record/reviewer?status=mine').set('Authorization', a.token);
    expectError(bad, 400, 'C0002');
  } finally {
    await h2.close();
  }
});

test('unknown review or record: 404 C0001', async () => {
  expect((await editReview(webB, 987654, 'approve')).body.code).toBe('C0001');
  expect((await dropReview(webB, 987654)).body.code).toBe('C0001');
  expect((await review(h, webB, 987654, 'approve')).body.code).toBe('C0001');
  expect((await reviewView(webB, 987654)).body.code).toBe('C0001');
});

test('review endpoints are for administrators only', async () => {
  const id = await createRecord(h, author, { part: 'web' });
  expect((await reviewView(reader, id)).status).toBe(403);
  expect((await request(h.app).get(`/api/v1/record/review/${id}`)).status).toBe(401);
  expect((await reviewee(reader, 'wait')).body.code).toBe('J0006');
  expect((await reviewer(reader, 'wait')).body.code).toBe('J0006');
});

test("a reviewer's entry that keeps changing under the request gives up with 429 C0004, nothing written", async () => {
  const id = await createRecord(h, author, { part: 'web', title: '끝없는 경합' });
  const records = recordsModels(h.connection).records;
  const realUpdateOne = records.updateOne.bind(records);
  // Another write by the same reviewer lands between every read and the conditional write that follows it
  // (a real write to the store, made just before the service's own).
  const spy = jest.spyOn(records, 'updateOne').mockImplementation(((filter: object, update: object) => ({
    exec: async () => {
      const current = await records.collection.findOne({ _id: id } as never);
      const entry = (current?.reviewers as Array<{ userId: number; status: string }>).find((r) => r.userId === webB.id);
      const other = entry?.status === 'wait' ? 'reject' : 'wait';
      await records.collection.updateOne({ _id: id, 'reviewers.userId': webB.id } as never, { $set: { 'reviewers.$.status': other } });
      return realUpdateOne(filter, update).exec();
    },
  })) as never);
  try {
    const res = await review(h, webB, id, 'approve');
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ code: 'C0004', message: '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.' });
  } finally {
    spy.mockRestore();
  }
  expect(await recordsModels(h.connection).reviews.countDocuments({ recordId: id })).toBe(0);
  expect((await records.findById(id).lean())?.notApproved).toBe(2);
});
