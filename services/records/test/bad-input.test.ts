import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, type TestPerson } from '../../../test/support/service';
import { approveBy, createRecord, type RecordsHarness, startRecordsHarness } from './helpers';

let h: RecordsHarness;
let lead: TestPerson;
let peer: TestPerson;
let user: TestPerson;
let recordId: number;
let commentId: number;
let reviewId: number;

beforeAll(async () => {
  h = await startRecordsHarness('recordsbad');
  lead = await addAdmin(h.connection, '리드', { id: 1, userType: 'WEB' });
  peer = await addAdmin(h.connection, '동료', { id: 2, userType: 'WEB' });
  user = await addMember(h.connection, '사용자', { id: 3 });
  recordId = await createRecord(h, lead, { part: 'web' });
  reviewId = (await request(h.app).post('/api/v1/record_review').set('Authorization', lead.token).send({ record_id: recordId, content: '답', status: 'mine' }))
    .body.data;
  await approveBy(h, recordId, [peer]);
  commentId = (
    await request(h.app).post('/api/v1/record_comment').set('Authorization', user.token).send({ record_id: recordId, parent_id: null, content: '원본' })
  ).body.data;
});
afterAll(async () => h.close());

const huge = 'x'.repeat(200_000);
const badBodies: unknown[] = [
  {},
  [],
  'text',
  42,
  null,
  { title: 1, content: 2 },
  { title: huge, content: huge },
  { record_id: 'one', content: 'a', status: 'approve' },
  { record_id: 1.5, parent_id: null, content: 'a' },
  { record_id: -1, parent_id: 'x', content: 'a' },
  { record_id: 1e300, parent_id: { $gt: 0 }, content: 'a' },
  { content: { $set: 'x' }, status: 'APPROVE' },
  { template: huge, category: 'issue' },
  { template: 'a', category: 'ISSUE', extra: true },
  { title: '   ', content: '\n', part: 'web', type: 'tech', category: 'issue' },
  { title: 't', content: 'c', part: 'web', type: 'tech', category: 'issue', hits: 1000 },
  { record_id: 1, parent_id: null, content: '', __proto__: { admin: true } },
];

const writes: [string, string][] = [
  ['post', '/api/v1/record'],
  ['put', '/api/v1/record/RECORD'],
  ['post', '/api/v1/record_review'],
  ['put', '/api/v1/record_review/REVIEW'],
  ['post', '/api/v1/record_comment'],
  ['put', '/api/v1/record_comment/COMMENT'],
  ['post', '/api/v1/record_category/template'],
];

function fill(path: string): string {
  return path.replace('RECORD', String(recordId)).replace('REVIEW', String(reviewId)).replace('COMMENT', String(commentId));
}

function expectClientError(res: request.Response, what: string): void {
  if (res.status < 400 || res.status >= 500) throw new Error(`${what}: status ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  expect(res.body.code).toMatch(/^[A-Z]\d{4}$/);
  expect(typeof res.body.message).toBe('string');
  expect(res.body).not.toHaveProperty('data');
}

function rawWrite(method: string, path: string, text: string) {
  const agent = request(h.app);
  const started = method === 'put' ? agent.put(path) : agent.post(path);
  return started.set('Authorization', lead.token).set('Content-Type', 'application/json').send(text);
}

test('bad JSON bodies on every write answer 4xx with an envelope', async () => {
  for (const [method, path] of writes) {
    for (const body of badBodies) {
      const res = await rawWrite(method, fill(path), JSON.stringify(body));
      expectClientError(res, `${method} ${path} ${JSON.stringify(body).slice(0, 60)}`);
    }
    const malformed = await rawWrite(method, fill(path), '{"title": ');
    expectClientError(malformed, `${method} ${path} malformed`);
    expect(malformed.body.code).toBe('C0002');
  }
});

test('bad path ids and query values answer 4xx', async () => {
  const ids = ['abc', '0', '-1', '1.5', '1e3', '99999999999999999999', '%00', 'x'.repeat(5000), '1;DROP'];
  for (const id of ids) {
    for (const [method, path] of [
      ['get', `/api/v1/record/${id}`],
      ['put', `/api/v1/record/${id}`],
      ['delete', `/api/v1/record/${id}`],
      ['get', `/api/v1/record/review/${id}`],
      ['put', `/api/v1/record_review/${id}`],
      ['delete', `/api/v1/record_review/${id}`],
      ['put', `/api/v1/record_comment/${id}`],
      ['delete', `/api/v1/record_comment/${id}`],
      ['get', `/api/v1/record_category/template/${id}`],
    ] as const) {
      const res = await request(h.app)[method](path).set('Authorization', lead.token).send({ title: 't', content: 'c', status: 'approve' });
      expectClientError(res, `${method} ${path.slice(0, 60)}`);
    }
  }
  for (const path of [
    '/api/v1/record/web/tech?category=issue&page=-1',
    '/api/v1/record/web/tech?category=issue&page=abc',
    '/api/v1/record/web/tech?category=issue&size=-1',
    '/api/v1/record/web/tech?category=issue&category=culture',
    '/api/v1/record/web/all?page=1&page=2',
    `/api/v1/record/${recordId}?page=999999999999`,
    `/api/v1/record/${recordId}?size=0`,
    '/api/v1/record/reviewee?status=WAIT',
    '/api/v1/record/reviewer?status=approve&status=wait',
    `/api/v1/record/web/${'t'.repeat(3000)}`,
  ]) {
    const res = await request(h.app).get(path).set('Authorization', lead.token);
    expectClientError(res, path.slice(0, 80));
  }
});

test('bad tokens answer 401, unknown routes 404', async () => {
  const noPrefix = await request(h.app).post('/api/v1/record').set('Authorization', 'abc').send({});
  expectError(noPrefix, 401, 'J0004');
  const garbage = await request(h.app).post('/api/v1/record_comment').set('Authorization', 'Bearer not.a.jwt').send({});
  expect(garbage.status).toBe(401);
  const unknown = await request(h.app).get('/api/v1/record/web/tech/extra');
  expectError(unknown, 404, 'C0001');
});

test('nothing stored changed after all the bad requests', async () => {
  const detail = await request(h.app).get(`/api/v1/record/${recordId}`).set('Authorization', peer.token);
  expect(detail.body.data).toMatchObject({ title: '장애 회고', content: '서버가 멈췄던 날의 기록입니다.', part: 'web', type: 'tech', category: 'disaster' });
  expect(detail.body.data.comments.content).toEqual([expect.objectContaining({ comment_id: commentId, content: '원본', level: 1 })]);
  const review = await request(h.app).get(`/api/v1/record/review/${recordId}`).set('Authorization', peer.token);
  expect(review.body.data.reviews.map((r: { review_id: number; content: string }) => [r.review_id, r.content])).toContainEqual([reviewId, '답']);
  const template = await request(h.app).get('/api/v1/record_category/template/issue').set('Authorization', lead.token);
  expect(template.body.data).toEqual({ template: '', category: 'issue' });
  const list = await request(h.app).get('/api/v1/record/all/all?size=50');
  expect(list.body.data.records.totalElements).toBe(1);
});
