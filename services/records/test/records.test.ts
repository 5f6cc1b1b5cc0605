import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, type TestPerson } from '../../../test/support/service';
import { approveBy, createRecord, recordBody, type RecordsHarness, startRecordsHarness } from './helpers';

let h: RecordsHarness;
let serverLead: TestPerson; // SERVER admin; records wait for serverPeer
let serverPeer: TestPerson;
let webSolo: TestPerson; // the only WEB admin: nobody reviews, approved at once
let reader: TestPerson;

beforeAll(async () => {
  h = await startRecordsHarness('records');
  serverLead = await addAdmin(h.connection, '서버리드', { id: 1, userType: 'SERVER' });
  serverPeer = await addAdmin(h.connection, '서버동료', { id: 2, userType: 'SERVER' });
  webSolo = await addAdmin(h.connection, '웹혼자', { id: 3, userType: 'WEB' });
  reader = await addMember(h.connection, '독자', { id: 4 });
});
afterAll(async () => h.close());

describe('POST /api/v1/record', () => {
  test('an administrator creates a record; the id comes back', async () => {
    const res = await request(h.app)
      .post('/api/v1/record')
      .set('Authorization', webSolo.token)
      .send(recordBody({ part: 'web' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공', data: expect.any(Number) });
  });

  test('no token: 401 J0000; a non-administrator: 403 J0006', async () => {
    const anonymous = await request(h.app).post('/api/v1/record').send(recordBody());
    expectError(anonymous, 401, 'J0000');
    const user = await request(h.app).post('/api/v1/record').set('Authorization', reader.token).send(recordBody());
    expect(user.status).toBe(403);
    expect(user.body).toEqual({ code: 'J0006', message: '권한이 없습니다.' });
  });

  test.each([
    [{ type: 'odori', category: 'disaster' }],
    [{ type: 'retro', category: 'culture' }],
    [{ type: 'tech', category: 'retrospection' }],
    [{ type: 'all', category: 'culture' }],
    [{ part: 'mobile' }],
    [{ category: 'CULTURE' }],
  ])('type-category pairing and enums are enforced: %j -> C0002', async (overrides) => {
    const res = await request(h.app).post('/api/v1/record').set('Authorization', webSolo.token).send(recordBody(overrides));
    expectError(res, 400, 'C0002');
  });

  test('every valid pairing is accepted, part all included', async () => {
    for (const [type, category] of [
      ['odori', 'culture'],
      ['retro', 'retrospection'],
      ['tech', 'disaster'],
      ['tech', 'issue'],
      ['tech', 'new_tech'],
      ['tech', 'architecture'],
    ]) {
      const res = await request(h.app)
        .post('/api/v1/record')
        .set('Authorization', webSolo.token)
        .send(recordBody({ type, category, part: 'all' }));
      expect(res.status).toBe(200);
    }
  });
});

describe('PUT and DELETE /api/v1/record/{recordId}', () => {
  test('only the author edits; others get C0003; the edit shows in the detail', async () => {
    const id = await createRecord(h, serverLead);
    const other = await request(h.app).put(`/api/v1/record/${id}`).set('Authorization', serverPeer.token).send({ title: '남의 글', content: '수정' });
    expectError(other, 403, 'C0003');
    const mine = await request(h.app).put(`/api/v1/record/${id}`).set('Authorization', serverLead.token).send({ title: '고친 제목', content: '고친 내용' });
    expect(mine.body).toEqual({ code: 'SUCCESS', message: '성공', data: id });
    const detail = await request(h.app).get(`/api/v1/record/${id}`).set('Authorization', serverLead.token);
    expect(detail.body.data).toMatchObject({ title: '고친 제목', content: '고친 내용' });
  });

  test('edit may not carry other members (type is fixed at creation)', async () => {
    const id = await createRecord(h, serverLead);
    const res = await request(h.app).put(`/api/v1/record/${id}`).set('Authorization', serverLead.token).send({ title: 't', content: 'c', type: 'odori' });
    expectError(res, 400, 'C0002');
  });

  test('only the author deletes; a deleted record is gone everywhere (C0001)', async () => {
    const id = await createRecord(h, webSolo);
    const other = await request(h.app).delete(`/api/v1/record/${id}`).set('Authorization', serverLead.token);
    expect(other.status).toBe(403);
    const del = await request(h.app).delete(`/api/v1/record/${id}`).set('Authorization', webSolo.token);
    expect(del.body).toEqual({ code: 'SUCCESS', message: '성공' });
    for (const res of [
      await request(h.app).get(`/api/v1/record/${id}`),
      await request(h.app).delete(`/api/v1/record/${id}`).set('Authorization', webSolo.token),
      await request(h.app).put(`/api/v1/record/${id}`).set('Authorization', webSolo.token).send({ title: 'a', content: 'b' }),
      await request(h.app).get(`/api/v1/record/review/${id}`).set('Authorization', webSolo.token),
    ]) {
      expectError(res, 404, 'C0001');
    }
    const list = await request(h.app).get('/api/v1/record/all/all?size=50');
    expect(list.body.data.records.content.map((r: { record_id: number }) => r.record_id)).not.toContain(id);
  });

  test('unknown record: 404 C0001', async () => {
    const res = await request(h.app).put('/api/v1/record/999999').set('Authorization', webSolo.token).send({ title: 'a', content: 'b' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });
  });
});

describe('GET /api/v1/record/{recordId}', () => {
  test('a record in review is readable by id by anyone (the back office opens it right after submitting), but listed only once approved', async () => {
    const id = await createRecord(h, serverLead, { title: '검토중' });
    const anonymous = await request(h.app).get(`/api/v1/record/${id}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data).toMatchObject({ record_id: id, title: '검토중', hits: 0 });
    expect((await request(h.app).get(`/api/v1/record/${id}`).set('Authorization', reader.token)).status).toBe(200);
    const listed = async () =>
      (await request(h.app).get('/api/v1/record/all/all?size=50')).body.data.records.content.map((r: { record_id: number }) => r.record_id);
    expect(await listed()).not.toContain(id);
    await approveBy(h, id, [serverPeer]);
    expect((await request(h.app).get(`/api/v1/record/${id}`)).body.data.hits).toBe(1);
    expect(await listed()).toContain(id);
  });

  test('detail carries the spec members, MM.DD.YYYY date and an empty comment page', async () => {
    h.clock.set(new Date('2024-12-31T16:30:00.000Z')); // 01.01.2025 in Korea
    const id = await createRecord(h, webSolo, { title: '새해', content: '본문', part: 'web', type: 'odori', category: 'culture' });
    h.clock.set(new Date('2025-01-01T00:00:00.000Z'));
    const res = await request(h.app).get(`/api/v1/record/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      record_id: id,
      title: '새해',
      content: '본문',
      hits: 1,
      part: 'web',
      type: 'odori',
      category: 'culture',
      nick_name: '웹혼자',
      create_at: '01.01.2025',
      comments: expect.objectContaining({
        content: [],
        size: 10,
        number: 0,
        totalElements: 0,
        empty: true,
        first: true,
        pageable: expect.objectContaining({ pageSize: 10 }),
      }),
    });
  });
});

describe('hits', () => {
  test('one signed-in viewer counts once per 24 hours; another viewer counts too', async () => {
    h.clock.set(new Date('2024-06-01T00:00:00.000Z'));
    const id = await createRecord(h, webSolo, { part: 'web' });
    const hits = async (auth?: string) => {
      const req = request(h.app).get(`/api/v1/record/${id}`);
      const res = await (auth ? req.set('Authorization', auth) : req);
      return res.body.data.hits as number;
    };
    expect(await hits(reader.token)).toBe(1);
    expect(await hits(reader.token)).toBe(1);
    h.clock.set(new Date('2024-06-01T23:59:59.000Z'));
    expect(await hits(reader.token)).toBe(1);
    expect(await hits(serverLead.token)).toBe(2);
    h.clock.set(new Date('2024-06-02T00:00:00.000Z'));
    expect(await hits(reader.token)).toBe(3);
    expect(await hits(reader.token)).toBe(3);
  });

  test('anonymous viewers count by client address', async () => {
    const id = await createRecord(h, webSolo, { part: 'web' });
    const asAddress = (ip: string) => request(h.app).get(`/api/v1/record/${id}`).set('X-Forwarded-For', ip);
    expect((await asAddress('203.0.113.7')).body.data.hits).toBe(1);
    expect((await asAddress('203.0.113.7')).body.data.hits).toBe(1);
    expect((await asAddress('203.0.113.8')).body.data.hits).toBe(2);
  });

  test('simultaneous first views by one viewer count once', async () => {
    const id = await createRecord(h, webSolo, { part: 'web' });
    const responses = await Promise.all(Array.from({ length: 12 }, () => request(h.app).get(`/api/v1/record/${id}`).set('Authorization', reader.token)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const after = await request(h.app).get(`/api/v1/record/${id}`).set('Authorization', serverLead.token);
    expect(after.body.data.hits).toBe(2);
  });
});

describe('lists', () => {
  let h2: RecordsHarness;
  let lead: TestPerson;
  let peer: TestPerson;
  beforeAll(async () => {
    h2 = await startRecordsHarness('recordlists');
    lead = await addAdmin(h2.connection, '리드', { id: 1, userType: 'SERVER' });
    peer = await addAdmin(h2.connection, '동료', { id: 2, userType: 'SERVER' });
  });
  afterAll(async () => h2.close());

  test('only approved records, newest first, filtered by part, type and category, 4 a page', async () => {
    const day = (d: number) => new Date(Date.UTC(2024, 0, d, 3));
    const made: Record<string, number> = {};
    const specs: [string, Record<string, unknown>][] = [
      ['webTech1', { part: 'web', type: 'tech', category: 'issue' }],
      ['webTech2', { part: 'web', type: 'tech', category: 'issue' }],
      ['serverTech', { part: 'server', type: 'tech', category: 'issue' }],
      ['webOdori', { part: 'web', type: 'odori', category: 'culture' }],
      ['webArch', { part: 'web', type: 'tech', category: 'architecture' }],
      ['infraRetro', { part: 'infra', type: 'retro', category: 'retrospection' }],
    ];
    let d = 1;
    for (const [name, overrides] of specs) {
      h2.clock.set(day(d++));
      made[name] = await createRecord(h2, lead, { ...overrides, title: name, content: 'ㄱ'.repeat(80) });
      await approveBy(h2, made[name], [peer]);
    }
    h2.clock.set(day(d));
    const waiting = await createRecord(h2, lead, { part: 'web', type: 'tech', category: 'issue', title: 'waiting' });

    const ids = (res: request.Response) => res.body.data.records.content.map((r: { record_id: number }) => r.record_id);
    const webIssue = await request(h2.app).get('/api/v1/record/web/tech?category=issue');
    expect(webIssue.status).toBe(200);
    expect(ids(webIssue)).toEqual([made.webTech2, made.webTech1]);
    expect(ids(webIssue)).not.toContain(waiting);

    const allAll = await request(h2.app).get('/api/v1/record/all/all');
    const page = allAll.body.data.records;
    expect(page).toMatchObject({ size: 4, number: 0, totalElements: 6, totalPages: 2, first: true, last: false, numberOfElements: 4, empty: false });
    expect(page.pageable).toEqual({
      sort: { empty: false, unsorted: false, sorted: true },
      offset: 0,
      pageSize: 4,
      pageNumber: 0,
      paged: true,
      unpaged: false,
    });
    expect(ids(allAll)).toEqual([made.infraRetro, made.webArch, made.webOdori, made.serverTech]);
    const item = page.content[0];
    expect(item).toEqual({
      record_id: made.infraRetro,
      title: 'infraRetro',
      content: 'ㄱ'.repeat(50),
      nick_name: '리드',
      create_at: '01.06.2024',
      part: 'infra',
    });

    const second = await request(h2.app).get('/api/v1/record/all/all?page=1');
    expect(ids(second)).toEqual([made.webTech2, made.webTech1]);
    expect(second.body.data.records).toMatchObject({ last: true, first: false, number: 1, numberOfElements: 2 });

    expect(ids(await request(h2.app).get('/api/v1/record/web/all'))).toEqual([made.webArch, made.webOdori, made.webTech2, made.webTech1]);
    expect(ids(await request(h2.app).get('/api/v1/record/all/tech?category=issue'))).toEqual([made.serverTech, made.webTech2, made.webTech1]);
    // For type all the category is no filter; the back office sends `category=null` for "none".
    const everything = ids(await request(h2.app).get('/api/v1/record/all/all'));
    expect(ids(await request(h2.app).get('/api/v1/record/all/all?category=culture'))).toEqual(everything);
    expect(ids(await request(h2.app).get('/api/v1/record/all/all?category=null&page=0'))).toEqual(everything);
    expect(ids(await request(h2.app).get('/api/v1/record/web/all?category=null'))).toEqual([made.webArch, made.webOdori, made.webTech2, made.webTech1]);
  });

  test('category is required unless type is all, and must fit the type', async () => {
    for (const path of [
      '/api/v1/record/web/tech',
      '/api/v1/record/web/tech?category=null',
      '/api/v1/record/web/tech?category=culture',
      '/api/v1/record/web/odori?category=nope',
      '/api/v1/record/mobile/all',
      '/api/v1/record/web/blog',
    ]) {
      const res = await request(h2.app).get(path);
      expectError(res, 400, 'C0002');
    }
  });

  test('hot: top 3 of the last 7 days by hits, filled with older approved records', async () => {
    const h3 = await startRecordsHarness('recordhot');
    try {
      const w = await addAdmin(h3.connection, '웹', { id: 1, userType: 'WEB' });
      const viewers = await Promise.all([10, 11, 12, 13, 14].map((n) => addMember(h3.connection, `v${n}`, { id: n })));
      const view = async (id: number, count: number) => {
        for (const v of viewers.slice(0, count)) await request(h3.app).get(`/api/v1/record/${id}`).set('Authorization', v.token);
      };
      h3.clock.set(new Date('2024-05-01T00:00:00Z'));
      const old = await createRecord(h3, w, { title: 'old' });
      await view(old, 5);
      h3.clock.set(new Date('2024-05-20T00:00:00Z'));
      const a = await createRecord(h3, w, { title: 'a' });
      const b = await createRecord(h3, w, { title: 'b' });
      await view(a, 1);
      await view(b, 3);
      const hot = await request(h3.app).get('/api/v1/record/hot');
      expect(hot.body).toEqual({
        code: 'SUCCESS',
        message: '성공',
        data: {
          records: [
            { record_id: b, title: 'b' },
            { record_id: a, title: 'a' },
            { record_id: old, title: 'old' },
          ],
        },
      });

      h3.clock.set(new Date('2024-05-21T00:00:00Z'));
      const c = await createRecord(h3, w, { title: 'c' });
      const d = await createRecord(h3, w, { title: 'd' });
      await view(d, 2);
      const hot2 = await request(h3.app).get('/api/v1/record/hot');
      expect(hot2.body.data.records.map((r: { record_id: number }) => r.record_id)).toEqual([b, d, a]);
      expect(hot2.body.data.records.map((r: { record_id: number }) => r.record_id)).not.toContain(c);
    } finally {
      await h3.close();
    }
  });
});

describe('templates', () => {
  test('upsert per category; a category without one reads empty', async () => {
    const empty = await request(h.app).get('/api/v1/record_category/template/issue').set('Authorization', webSolo.token);
    expect(empty.body).toEqual({ code: 'SUCCESS', message: '성공', data: { template: '', category: 'issue' } });
    const save = await request(h.app)
      .post('/api/v1/record_category/template')
      .set('Authorization', webSolo.token)
      .send({ template: '## 원인', category: 'issue' });
    expect(save.body).toEqual({ code: 'SUCCESS', message: '성공' });
    await request(h.app)
      .post('/api/v1/record_category/template')
      .set('Authorization', serverLead.token)
      .send({ template: '## 원인\n## 대책', category: 'issue' });
    const read = await request(h.app).get('/api/v1/record_category/template/issue').set('Authorization', serverLead.token);
    expect(read.body.data).toEqual({ template: '## 원인\n## 대책', category: 'issue' });
    const other = await request(h.app).get('/api/v1/record_category/template/culture').set('Authorization', serverLead.token);
    expect(other.body.data).toEqual({ template: '', category: 'culture' });
  });

  test('administrators only; unknown category C0002', async () => {
    expect((await request(h.app).get('/api/v1/record_category/template/issue').set('Authorization', reader.token)).body.code).toBe('J0006');
    expect(
      (await request(h.app).post('/api/v1/record_category/template').set('Authorization', reader.token).send({ template: 'x', category: 'issue' })).body.code,
    ).toBe('J0006');
    expect((await request(h.app).get('/api/v1/record_category/template/issue')).status).toBe(401);
    const bad = await request(h.app).get('/api/v1/record_category/template/blog').set('Authorization', webSolo.token);
    expectError(bad, 400, 'C0002');
  });
});
