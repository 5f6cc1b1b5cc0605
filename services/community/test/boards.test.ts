import { UNKNOWN_NICKNAME } from '@binzip/shared';
import request from 'supertest';
import { bearer, expectError } from '../../../test/support';
import { addAdmin, addMember, addPerson, startServiceHarness, updatePerson, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { boardPayload, type BoardPayload, ISO_OFFSET, postBoard, postComment } from './helpers';

const PREVIEW_KEYS = ['boardId', 'title', 'code', 'oneLineContent', 'nickName', 'createdAt', 'imageUrl', 'commentCount', 'category', 'prefixCategory', 'fixed'];
const DETAIL_KEYS = ['boardId', 'title', 'code', 'nickName', 'createdAt', 'imageUrls', 'loveCount', 'category', 'prefixCategory', 'commentCount', 'comments'];
const OWN_KEYS = ['boardId', 'title', 'oneLineContent', 'createdAt', 'imageUrl', 'category', 'prefixCategory', 'commentCnt'];
const PAGE_KEYS = ['content', 'size', 'totalElements', 'totalPages', 'last', 'first', 'number', 'numberOfElements', 'empty', 'sort'].sort();

const startCommunity = (label: string) => startServiceHarness(label, { models: communityModels, initModels, buildApp });

describe('boards: write, read, update, delete', () => {
  let h: ServiceHarness<CommunityModels>;
  let author: TestPerson;
  let other: TestPerson;
  let admin: TestPerson;
  beforeAll(async () => {
    h = await startCommunity('cboards');
    author = await addMember(h.connection, '작성자');
    other = await addMember(h.connection, '다른사람');
    admin = await addAdmin(h.connection, '관리자');
  });
  afterAll(() => h.close());

  test('create returns an integer id; detail has exactly the spec fields', async () => {
    const res = await request(h.app)
      .post('/api/v1/boards')
      .set('Authorization', author.token)
      .send(
        boardPayload({
          title: '  첫 글  ',
          code: '<h1>Big</h1><p>안녕 <b>세상</b></p>',
          category: 'DAILY',
          imageUrls: ['https://img/1.png', 'https://img/2.png'],
        }),
      );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공', data: expect.any(Number) });
    const id = res.body.data as number;
    expect(Number.isInteger(id)).toBe(true);

    const detail = await request(h.app).get(`/api/v1/boards/${id}`);
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body.data)).toEqual(DETAIL_KEYS);
    expect(detail.body.data).toEqual({
      boardId: id,
      title: '첫 글',
      code: '<h1>Big</h1><p>안녕 <b>세상</b></p>',
      nickName: '작성자',
      createdAt: expect.stringMatching(ISO_OFFSET),
      imageUrls: ['https://img/1.png', 'https://img/2.png'],
      loveCount: 0,
      category: 'DAILY',
      prefixCategory: 'DEFAULT',
      commentCount: 0,
      comments: [],
    });
  });

  test('a null or absent category is stored as EMPTY; imageUrls and fixed may be left out', async () => {
    const withNull = await postBoard(h.app, author, { category: null });
    const absent = await request(h.app).post('/api/v1/boards').set('Authorization', author.token).send({ title: 't', code: 'c', prefixCategory: 'INTRO' });
    expect(absent.status).toBe(200);
    for (const id of [withNull, absent.body.data]) {
      const detail = await request(h.app).get(`/api/v1/boards/${id}`);
      expect(detail.body.data.category).toBe('EMPTY');
    }
    const detail = await request(h.app).get(`/api/v1/boards/${absent.body.data}`);
    expect(detail.body.data.imageUrls).toEqual([]);
  });

  test('only an admin pins, and only promotion posts', async () => {
    const byUser = await postBoard(h.app, author, { prefixCategory: 'ADVERTISEMENT', category: 'INTERIOR', fixed: true });
    const byAdmin = await postBoard(h.app, admin, { prefixCategory: 'ADVERTISEMENT', category: 'INTERIOR', fixed: true });
    const adminFree = await postBoard(h.app, admin, { prefixCategory: 'DEFAULT', fixed: true });
    const stored = await h.models.boards
      .find({ _id: { $in: [byUser, byAdmin, adminFree] } })
      .sort({ _id: 1 })
      .lean();
    expect(stored.map((b) => b.fixed)).toEqual([false, true, false]);
  });

  test('an author unknown to the projection renders as the unknown nickname; a nickname change shows without touching the post', async () => {
    const newcomerId = 77;
    const id = await postBoard(h.app, { token: bearer({ userId: newcomerId }) });
    expect((await request(h.app).get(`/api/v1/boards/${id}`)).body.data.nickName).toBe(UNKNOWN_NICKNAME);
    const newcomer = await addPerson(h.connection, '새로온', { id: newcomerId, snapshot: { version: 1 } });
    expect((await request(h.app).get(`/api/v1/boards/${id}`)).body.data.nickName).toBe('새로온');
    await updatePerson(h.connection, newcomer, { nick_name: '이름바꿈', version: 2 });
    await updatePerson(h.connection, newcomer, { nick_name: '옛이름', version: 1 }); // an older snapshot arriving late changes nothing
    expect((await request(h.app).get(`/api/v1/boards/${id}`)).body.data.nickName).toBe('이름바꿈');
  });

  test('create needs a token; a bad token is 401', async () => {
    expectError(await request(h.app).post('/api/v1/boards').send(boardPayload()), 401, 'J0000');
    expectError(await request(h.app).post('/api/v1/boards').set('Authorization', 'Bearer nonsense').send(boardPayload()), 401, 'J0004');
    expectError(await request(h.app).post('/api/v1/boards').set('Authorization', 'Token abc').send(boardPayload()), 401, 'J0004');
  });

  test.each([
    ['missing title', { title: undefined }, '제목 값이 누락되었습니다.'],
    ['blank title', { title: '   ' }, '제목 값이 올바르지 않습니다.'],
    ['title too long', { title: 'x'.repeat(101) }, '제목 값이 올바르지 않습니다.'],
    ['number as title', { title: 5 }, '제목 값이 올바르지 않습니다.'],
    ['missing code', { code: undefined }, '본문 값이 누락되었습니다.'],
    ['huge body', { code: 'x'.repeat(50_001) }, '본문 값이 올바르지 않습니다.'],
    ['unknown prefix', { prefixCategory: 'NEWS' }, '게시판 종류 값이 올바르지 않습니다.'],
    ['lower-case prefix', { prefixCategory: 'default' }, '게시판 종류 값이 올바르지 않습니다.'],
    ['unknown category', { category: 'GOSSIP' }, '말머리 값이 올바르지 않습니다.'],
    ['category of another board type', { prefixCategory: 'INTRO', category: 'QUESTION' }, '말머리 값이 게시판 종류에 맞지 않습니다.'],
    ['imageUrls not an array', { imageUrls: 'a.png' }, '이미지 주소 값이 올바르지 않습니다.'],
    ['image url not a string', { imageUrls: [1] }, '이미지 주소 값이 올바르지 않습니다.'],
    ['javascript: image url', { imageUrls: ['javascript:alert(1)'] }, '이미지 주소 값이 올바르지 않습니다.'],
    ['data: image url', { imageUrls: ['https://img.example.com/a.png', 'data:text/html,<script>alert(1)</script>'] }, '이미지 주소 값이 올바르지 않습니다.'],
    ['relative image url', { imageUrls: ['a.png'] }, '이미지 주소 값이 올바르지 않습니다.'],
    [
      'image url with quotes (an attribute breaking out)',
      { imageUrls: ['https://img.example.com/a.png"onerror="alert(1)'] },
      '이미지 주소 값이 올바르지 않습니다.',
    ],
    ['image url with angle brackets', { imageUrls: ['https://img.example.com/<script>alert(1)</script>.png'] }, '이미지 주소 값이 올바르지 않습니다.'],
    [
      'image url with a single quote or space',
      { imageUrls: ["https://img.example.com/a.png'onerror='x", 'https://img.example.com/a b.png'] },
      '이미지 주소 값이 올바르지 않습니다.',
    ],
    ['too many images', { imageUrls: Array.from({ length: 21 }, (_, i) => `u${i}`) }, '이미지 주소 값이 올바르지 않습니다.'],
    ['fixed as text', { fixed: 'yes' }, '고정 여부 값이 올바르지 않습니다.'],
    ['unknown field', { authorId: 5 }, 'authorId 필드는 허용되지 않습니다.'],
    ['operator-looking field', { $set: { deleted: true } }, '$set 필드는 허용되지 않습니다.'],
  ])('create rejects %s with C0002 and stores nothing', async (_name, over, message) => {
    const before = await h.models.boards.countDocuments();
    const res = await request(h.app).post('/api/v1/boards').set('Authorization', author.token).send(boardPayload(over));
    expectError(res, 400, 'C0002');
    expect(res.body.message).toBe(message);
    expect(await h.models.boards.countDocuments()).toBe(before);
  });

  test.each([
    ['malformed JSON', '{"title": "x",', 'application/json'],
    ['a JSON array', '[1,2]', 'application/json'],
    ['a JSON string', '"title"', 'application/json'],
    ['form data', 'title=x&code=y', 'application/x-www-form-urlencoded'],
  ])('create answers %s with 400 C0002', async (_name, body, type) => {
    const res = await request(h.app).post('/api/v1/boards').set('Authorization', author.token).set('Content-Type', type).send(body);
    expectError(res, 400, 'C0002');
  });

  test('a body over the size limit is a 4xx envelope, not a crash', async () => {
    const res = await request(h.app)
      .post('/api/v1/boards')
      .set('Authorization', author.token)
      .send(boardPayload({ code: 'x'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('C0002');
  });

  test('deeply nested or odd markup is stored and summarised without failing', async () => {
    const code = '<div>'.repeat(4_000) + '깊은 글' + '</div>'.repeat(4_000);
    const id = await postBoard(h.app, author, { code: code + '<<<>>> &amp; 끝' });
    const board = await h.models.boards.findById(id).lean();
    // Stored sanitized: the same markup, the stray brackets as the entities they are shown as.
    expect(board?.code).toBe(code + '&lt;&lt;&lt;&gt;&gt;&gt; &amp; 끝');
    expect(board?.oneLineContent.length).toBeLessThanOrEqual(200);
  });

  test('a body without text (only an image, an empty paragraph) is saved with an empty summary, not a 500', async () => {
    // Stored sanitized, so void elements come back in their self-closed form.
    const stored: Record<string, string> = {
      '<img src="https://img/only.png">': '<img src="https://img/only.png" />',
      '<p></p>': '<p></p>',
      '<p><br></p><hr>': '<p><br /></p><hr />',
    };
    for (const code of Object.keys(stored)) {
      const res = await request(h.app)
        .post('/api/v1/boards')
        .set('Authorization', author.token)
        .send(boardPayload({ code, imageUrls: ['https://img/only.png'] }));
      expect(res.status).toBe(200);
      const mine = await request(h.app).get('/api/v1/boards/my').set('Authorization', author.token);
      expect(mine.body.data.content[0]).toMatchObject({ boardId: res.body.data, oneLineContent: '', imageUrl: 'https://img/only.png' });
      expect((await request(h.app).get(`/api/v1/boards/${res.body.data}`)).body.data.code).toBe(stored[code]);
    }
    const withText = await postBoard(h.app, author, { code: '<p>글</p>' });
    const update = await request(h.app)
      .put(`/api/v1/boards/${withText}`)
      .set('Authorization', author.token)
      .send(boardPayload({ code: '<img src="a.png">' }));
    expect(update.status).toBe(200);
    expect((await h.models.boards.findById(withText).lean())?.oneLineContent).toBe('');
  });

  test("oneLineContent is the body's text only: no list bullets, quote marks or rules, table cells kept apart", async () => {
    const id = await postBoard(h.app, author, {
      code:
        '<ul><li>사과</li><li>배</li></ul><ol><li>하나</li><li>둘</li></ol><blockquote>인용</blockquote><hr>' +
        '<table><tr><th>Head</th><th>H2</th></tr><tr><td>cell</td><td>c2</td></tr></table>',
    });
    const board = await h.models.boards.findById(id).lean();
    expect(board?.oneLineContent).toBe('사과 배 하나 둘 인용 Head H2 cell c2');
    expect(board?.plainText).toBe('사과 배 하나 둘 인용 Head H2 cell c2');
  });

  test.each(['abc', '0', '-1', '1.5', '99999999999999999999', '1e3'])('a bad board id %s is C0002; a missing one C0001', async (id) => {
    expectError(await request(h.app).get(`/api/v1/boards/${id}`), 400, 'C0002');
    expectError(await request(h.app).put(`/api/v1/boards/${id}`).set('Authorization', author.token).send(boardPayload()), 400, 'C0002');
    expectError(await request(h.app).delete(`/api/v1/boards/${id}`).set('Authorization', author.token), 400, 'C0002');
  });

  test('unknown board and unknown route are 404 C0001', async () => {
    expectError(await request(h.app).get('/api/v1/boards/987654'), 404, 'C0001');
    expectError(await request(h.app).get('/api/v1/nothing'), 404, 'C0001');
  });

  test('update: author only; replaces the content; EMPTY keeps no category; returns the id', async () => {
    const id = await postBoard(h.app, author, { category: 'QUESTION', imageUrls: ['https://img.example.com/a.png'] });
    const put = (person: TestPerson, over: BoardPayload) =>
      request(h.app).put(`/api/v1/boards/${id}`).set('Authorization', person.token).send(boardPayload(over));

    expectError(await put(other, { title: '가로채기' }), 403, 'C0003');
    expectError(await put(admin, { title: '관리자' }), 403, 'C0003');
    expectError(await request(h.app).put(`/api/v1/boards/${id}`).send(boardPayload()), 401, 'J0000');
    expectError(await put(author, { category: 'TREND' }), 400, 'C0002');
    expect((await h.models.boards.findById(id).lean())?.title).toBe('제목');

    const ok = await put(author, {
      title: '고친 제목',
      code: '<p>새 본문</p>',
      category: 'EMPTY',
      imageUrls: ['https://img.example.com/b.png', 'http://img.example.com/c.png'],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toBe(id);
    const detail = (await request(h.app).get(`/api/v1/boards/${id}`)).body.data;
    expect(detail).toMatchObject({
      title: '고친 제목',
      code: '<p>새 본문</p>',
      category: 'EMPTY',
      imageUrls: ['https://img.example.com/b.png', 'http://img.example.com/c.png'],
      prefixCategory: 'DEFAULT',
    });

    expectError(await request(h.app).put('/api/v1/boards/987654').set('Authorization', author.token).send(boardPayload()), 404, 'C0001');
  });

  test('delete: not by others; by the author or an admin; a deleted board vanishes everywhere', async () => {
    const mine = await postBoard(h.app, author, { title: '지울 글' });
    const another = await postBoard(h.app, author, { title: '관리자가 지울 글' });
    expectError(await request(h.app).delete(`/api/v1/boards/${mine}`).set('Authorization', other.token), 403, 'C0003');
    expectError(await request(h.app).delete(`/api/v1/boards/${mine}`), 401, 'J0000');

    const byAuthor = await request(h.app).delete(`/api/v1/boards/${mine}`).set('Authorization', author.token);
    expect(byAuthor.status).toBe(200);
    expect(byAuthor.body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect((await request(h.app).delete(`/api/v1/boards/${another}`).set('Authorization', admin.token)).status).toBe(200);

    for (const id of [mine, another]) {
      expectError(await request(h.app).get(`/api/v1/boards/${id}`), 404, 'C0001');
      expectError(await request(h.app).get(`/api/v1/comments/${id}`), 404, 'C0001');
      expectError(await request(h.app).put(`/api/v1/boards/${id}`).set('Authorization', author.token).send(boardPayload()), 404, 'C0001');
      expectError(await request(h.app).delete(`/api/v1/boards/${id}`).set('Authorization', author.token), 404, 'C0001');
    }
    const list = await request(h.app).get('/api/v1/boards').query({ prefix: 'DEFAULT', size: 50 });
    const my = await request(h.app).get('/api/v1/boards/my').set('Authorization', author.token).query({ size: 50 });
    const preview = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY', limit: 50 });
    for (const items of [list.body.data.content, my.body.data.content, preview.body.data]) {
      const ids = (items as Array<{ boardId: number }>).map((b) => b.boardId);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids).not.toContain(mine);
      expect(ids).not.toContain(another);
    }
    // soft: the rows are still there
    expect(await h.models.boards.countDocuments({ _id: { $in: [mine, another] }, deleted: true })).toBe(2);
  });
});

describe('boards: lists, preview, categories, own posts', () => {
  let h: ServiceHarness<CommunityModels>;
  let author: TestPerson;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    h = await startCommunity('cboardlists');
    author = await addMember(h.connection, '작성자');
    const other = await addMember(h.connection, '다른사람');
    const admin = await addAdmin(h.connection, '관리자');
    // created in this order, a minute apart: later ones are newer
    const post = async (by: TestPerson, over: BoardPayload) => {
      h.clock.advance(60_000);
      return postBoard(h.app, by, over);
    };
    ids.q1 = await post(author, { title: '감자 질문', code: '<p>Hello <span>World</span></p>', category: 'QUESTION' });
    ids.d1 = await post(other, {
      title: '일상 이야기',
      code: '<p>오늘의 (감자) 요리 a+b</p>',
      category: 'DAILY',
      imageUrls: ['https://img.example.com/t1.png', 'https://img.example.com/t2.png'],
    });
    ids.s1 = await post(author, { title: '나눔합니다', code: '<p>의자 나눔</p>', category: 'SHARING' });
    ids.e1 = await post(other, { title: '빈 분류', code: '<p>분류 없음</p>', category: null });
    ids.ad = await post(author, { title: '인테리어 홍보', code: '<p>홍보</p>', prefixCategory: 'ADVERTISEMENT', category: 'INTERIOR' });
    ids.pin = await post(admin, { title: '공지', code: '<p>고정</p>', prefixCategory: 'ADVERTISEMENT', category: 'REAL_ESTATE', fixed: true });
    ids.in1 = await post(author, { title: '요즘 트렌드', code: '<p>트렌드</p>', prefixCategory: 'INTRO', category: 'TREND' });
    ids.in2 = await post(other, { title: '후기 남김', code: '<p>후기</p>', prefixCategory: 'INTRO', category: 'REVIEW' });
    // loves: d1 twice, s1 once, ad three times
    const lovers = await Promise.all(['하나', '둘', '셋'].map((name) => addMember(h.connection, name)));
    for (const [board, count] of [
      [ids.d1, 2],
      [ids.s1, 1],
      [ids.ad, 3],
    ] as Array<[number, number]>) {
      for (const lover of lovers.slice(0, count))
        expect((await request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', lover.token)).status).toBe(200);
    }
    await postComment(h.app, other, ids.q1, '첫 댓글');
    await postComment(h.app, author, ids.q1, '둘째 댓글');
  });
  afterAll(() => h.close());

  const list = (query: Record<string, unknown>) => request(h.app).get('/api/v1/boards').query(query);
  const boardIds = (res: request.Response): number[] => res.body.data.content.map((b: { boardId: number }) => b.boardId);

  test('RECENT is the default: newest first, with the full page object and the list item fields', async () => {
    const res = await list({ prefix: 'DEFAULT' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(PAGE_KEYS);
    expect(res.body.data).toMatchObject({
      size: 8,
      number: 0,
      first: true,
      last: true,
      totalElements: 4,
      totalPages: 1,
      numberOfElements: 4,
      empty: false,
      sort: { empty: false, unsorted: false, sorted: true },
    });
    expect(boardIds(res)).toEqual([ids.e1, ids.s1, ids.d1, ids.q1]);
    const d1 = res.body.data.content[2];
    expect(Object.keys(d1)).toEqual(PREVIEW_KEYS);
    expect(d1).toEqual({
      boardId: ids.d1,
      title: '일상 이야기',
      code: '<p>오늘의 (감자) 요리 a+b</p>',
      oneLineContent: '오늘의 (감자) 요리 a+b',
      nickName: '다른사람',
      createdAt: expect.stringMatching(ISO_OFFSET),
      imageUrl: 'https://img.example.com/t1.png',
      commentCount: 0,
      category: 'DAILY',
      prefixCategory: 'DEFAULT',
      fixed: false,
    });
    expect(res.body.data.content[3]).toMatchObject({ boardId: ids.q1, imageUrl: null, commentCount: 2 });
  });

  test('POPULAR: pinned first, then most loved, ties newest first', async () => {
    expect(boardIds(await list({ prefix: 'DEFAULT', order: 'POPULAR' }))).toEqual([ids.d1, ids.s1, ids.e1, ids.q1]);
    expect(boardIds(await list({ prefix: 'ADVERTISEMENT', order: 'POPULAR' }))).toEqual([ids.pin, ids.ad]);
    expect(boardIds(await list({ prefix: 'ADVERTISEMENT', order: 'RECENT' }))).toEqual([ids.pin, ids.ad]);
  });

  test('category filters; EMPTY finds posts without one; absent means all', async () => {
    expect(boardIds(await list({ prefix: 'DEFAULT', category: 'DAILY' }))).toEqual([ids.d1]);
    expect(boardIds(await list({ prefix: 'DEFAULT', category: 'EMPTY' }))).toEqual([ids.e1]);
    expect(boardIds(await list({ prefix: 'DEFAULT', category: '' }))).toHaveLength(4);
    expectError(await list({ prefix: 'DEFAULT', category: 'TREND' }), 400, 'C0002');
    expectError(await list({ prefix: 'DEFAULT', category: 'NOPE' }), 400, 'C0002');
  });

  test('search: title or body text, case-insensitive, literal (not a pattern), not markup or nickname', async () => {
    expect(boardIds(await list({ prefix: 'DEFAULT', search: '감자' }))).toEqual([ids.d1, ids.q1]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: 'hello WORLD' }))).toEqual([ids.q1]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: '(감자)' }))).toEqual([ids.d1]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: 'a+b' }))).toEqual([ids.d1]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: '.*' }))).toEqual([]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: 'span' }))).toEqual([]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: '다른사람' }))).toEqual([]);
    expect(boardIds(await list({ prefix: 'DEFAULT', search: '감자', category: 'QUESTION' }))).toEqual([ids.q1]);
    expectError(await list({ prefix: 'DEFAULT', search: 'x'.repeat(101) }), 400, 'C0002');
  });

  test('paging is 0-based with totals', async () => {
    const first = await list({ prefix: 'DEFAULT', size: 3, page: 0 });
    expect(first.body.data).toMatchObject({ size: 3, number: 0, first: true, last: false, totalElements: 4, totalPages: 2, numberOfElements: 3 });
    const second = await list({ prefix: 'DEFAULT', size: 3, page: 1 });
    expect(second.body.data).toMatchObject({ number: 1, first: false, last: true, numberOfElements: 1, empty: false });
    expect([...boardIds(first), ...boardIds(second)]).toEqual([ids.e1, ids.s1, ids.d1, ids.q1]);
    const beyond = await list({ prefix: 'DEFAULT', size: 3, page: 5 });
    expect(beyond.body.data).toMatchObject({ content: [], empty: true, numberOfElements: 0, last: true, totalElements: 4 });
  });

  test.each([
    [{}, 'missing prefix'],
    [{ prefix: 'COMMUNITY' }, 'preview-only prefix'],
    [{ prefix: 'nope' }, 'unknown prefix'],
    [{ prefix: 'DEFAULT', order: 'OLDEST' }, 'unknown order'],
    [{ prefix: 'DEFAULT', page: -1 }, 'negative page'],
    [{ prefix: 'DEFAULT', page: 'x' }, 'text page'],
    [{ prefix: 'DEFAULT', size: 0 }, 'size 0'],
    [{ prefix: 'DEFAULT', size: -3 }, 'negative size'],
    [{ prefix: 'DEFAULT', category: 'nope' }, 'unknown category'],
    [{ prefix: 'DEFAULT', search: 'a\u0000b' }, 'a NUL in the search'],
    [{ prefix: 'DEFAULT', search: '\u001b[31m' }, 'an escape in the search'],
    [{ prefix: 'DEFAULT', size: '1e2' }, 'size in exponent form'],
    [{ prefix: ['DEFAULT', 'INTRO'] }, 'repeated prefix'],
  ] as Array<[Record<string, unknown>, string]>)('list rejects %j (%s) with C0002', async (query) => {
    expectError(await list(query), 400, 'C0002');
  });

  test('preview: COMMUNITY spans promotion and free boards; pinned, then most loved; plain array of list items', async () => {
    const res = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY' });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.map((b: { boardId: number }) => b.boardId)).toEqual([ids.pin, ids.ad, ids.d1, ids.s1, ids.e1]);
    expect(Object.keys(res.body.data[0])).toEqual(PREVIEW_KEYS);
    expect(res.body.data[0].fixed).toBe(true);

    const blankCategory = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY', category: '' });
    expect(blankCategory.body.data).toEqual(res.body.data);
    const nullCategory = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY', category: 'null' });
    expect(nullCategory.body.data).toEqual(res.body.data);
    const two = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY', limit: 2 });
    expect(two.body.data).toHaveLength(2);
    // The web client's intro page asks for 100: read as the maximum (50), not refused.
    const many = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY', limit: 100 });
    expect(many.status).toBe(200);
    expect(many.body.data.length).toBeGreaterThan(res.body.data.length);
    expectError(await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'COMMUNITY', limit: -1 }), 400, 'C0002');
    const intro = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'INTRO' });
    expect(intro.body.data.map((b: { boardId: number }) => b.boardId)).toEqual([ids.in2, ids.in1]);
    const review = await request(h.app).get('/api/v1/boards/preview').query({ prefix: 'INTRO', category: 'REVIEW' });
    expect(review.body.data.map((b: { boardId: number }) => b.boardId)).toEqual([ids.in2]);
  });

  test.each([
    {},
    { prefix: 'ALL' },
    { prefix: 'INTRO', category: 'DAILY' },
    { prefix: 'COMMUNITY', category: 'DAILY' },
    { prefix: 'COMMUNITY', category: 'EMPTY' },
    { prefix: 'DEFAULT', category: 'QUESTION' },
    { prefix: 'INTRO', limit: 0 },
    { prefix: 'INTRO', limit: -5 },
    { prefix: 'INTRO', limit: 'many' },
  ])('preview rejects %j with C0002', async (query) => {
    expectError(await request(h.app).get('/api/v1/boards/preview').query(query), 400, 'C0002');
  });

  test('category endpoint: Korean label and enum name per board type; unknown type is empty', async () => {
    const get = (name?: string) =>
      request(h.app)
        .get('/api/v1/boards/category')
        .query(name === undefined ? {} : { name });
    expect((await get('ADVERTISEMENT')).body).toEqual({
      code: 'SUCCESS',
      message: '성공',
      data: [
        { code: '인테리어', name: 'INTERIOR' },
        { code: '토지', name: 'ESTATE' },
        { code: '부동산', name: 'REAL_ESTATE' },
      ],
    });
    expect((await get('DEFAULT')).body.data).toEqual([
      { code: '질문', name: 'QUESTION' },
      { code: '일상', name: 'DAILY' },
      { code: '나눔', name: 'SHARING' },
    ]);
    expect((await get('INTRO')).body.data).toEqual([
      { code: '트렌드', name: 'TREND' },
      { code: '후기', name: 'REVIEW' },
    ]);
    expect((await get('SOMETHING')).body.data).toEqual([]);
    expectError(await get(), 400, 'C0002');
  });

  test('my posts: only the caller, newest first, commentCnt, page size 10', async () => {
    const res = await request(h.app).get('/api/v1/boards/my').set('Authorization', author.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(PAGE_KEYS);
    expect(res.body.data).toMatchObject({ size: 10, number: 0, totalElements: 4 });
    expect(boardIds(res)).toEqual([ids.in1, ids.ad, ids.s1, ids.q1]);
    const q1 = res.body.data.content[3];
    expect(Object.keys(q1)).toEqual(OWN_KEYS);
    expect(q1).toEqual({
      boardId: ids.q1,
      title: '감자 질문',
      oneLineContent: 'Hello World',
      createdAt: expect.stringMatching(ISO_OFFSET),
      imageUrl: null,
      category: 'QUESTION',
      prefixCategory: 'DEFAULT',
      commentCnt: 2,
    });
    expectError(await request(h.app).get('/api/v1/boards/my'), 401, 'J0000');
    expectError(await request(h.app).get('/api/v1/boards/my').set('Authorization', author.token).query({ page: 'first' }), 400, 'C0002');
  });
});
