import request from 'supertest';
import { expectError } from '../../../test/support';
import { addMember, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { sanitizeStoredBoards } from '../src/domain/boards';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { boardPayload, postBoard } from './helpers';

const HOSTILE =
  '<p onclick="steal()">안녕 <b>세상</b></p>' +
  '<script>document.cookie</script>' +
  '<img src="https://img.example.com/a.png" onerror="alert(1)">' +
  '<a href="javascript:alert(1)">나쁜 링크</a>' +
  '<iframe src="https://evil.example.com">프레임 대체 글</iframe>' +
  '<div style="position:fixed;top:0;left:0;width:100%;height:100%;z-index:9999">덮기</div>';

/** Nothing in a body may run script or cover the page. */
function expectSafe(html: string): void {
  expect(html).not.toMatch(/<script|<iframe|<form|javascript:|\son\w+=|position|z-index/i);
}

describe('board bodies are sanitized on every write', () => {
  let h: ServiceHarness<CommunityModels>;
  let author: TestPerson;
  beforeAll(async () => {
    h = await startServiceHarness('ccontent', { models: communityModels, initModels, buildApp });
    author = await addMember(h.connection, '작성자');
  });
  afterAll(() => h.close());

  const detail = async (id: number) => (await request(h.app).get(`/api/v1/boards/${id}`)).body.data as { code: string };

  test('create: scripts, handlers, javascript: links and frames are removed, the text stays', async () => {
    const id = await postBoard(h.app, author, { code: HOSTILE });
    const { code } = await detail(id);
    expectSafe(code);
    expect(code).toBe('<p>안녕 <b>세상</b></p><img src="https://img.example.com/a.png" /><a>나쁜 링크</a>프레임 대체 글<div>덮기</div>');
    // The derived summary comes from the clean body: no script text in it.
    const stored = await h.models.boards.findById(id).lean();
    expect(stored?.oneLineContent).toBe('안녕 세상 나쁜 링크프레임 대체 글 덮기');
    expect(stored?.plainText).not.toContain('cookie');
  });

  test('ordinary formatting, links and images survive unchanged', async () => {
    const body =
      '<h2>제목</h2><p style="text-align:center;color:#333">가운데 <strong>굵게</strong> <em>기울임</em> <u>밑줄</u></p>' +
      '<ul><li>하나</li></ul><ol><li>둘</li></ol>' +
      '<table><thead><tr><th>머리</th></tr></thead><tbody><tr><td>칸</td></tr></tbody></table>' +
      '<p><a href="https://example.com/page">링크</a> <a href="mailto:a@example.com">메일</a></p>' +
      '<img src="https://img.example.com/b.png" alt="사진" />';
    const id = await postBoard(h.app, author, { code: body });
    expect((await detail(id)).code).toBe(body);
  });

  test('edit is sanitized too', async () => {
    const id = await postBoard(h.app, author);
    const res = await request(h.app)
      .put(`/api/v1/boards/${id}`)
      .set('Authorization', author.token)
      .send(boardPayload({ code: '<p>고침</p><img src="x" onerror="alert(1)"><a href="JaVaScRiPt:alert(1)">x</a>' }));
    expect(res.status).toBe(200);
    const { code } = await detail(id);
    expectSafe(code);
    expect(code).toContain('고침');
  });

  test('a body with nothing left once cleaned is refused with 400 C0002, nothing stored', async () => {
    const before = await h.models.boards.countDocuments();
    const res = await request(h.app)
      .post('/api/v1/boards')
      .set('Authorization', author.token)
      .send(boardPayload({ code: '<script>alert(1)</script>' }));
    expectError(res, 400, 'C0002');
    expect(res.body.message).toBe('본문 값이 올바르지 않습니다.');
    expect(await h.models.boards.countDocuments()).toBe(before);
  });

  test('boards stored unsafe before sanitizing existed are cleaned at start, text kept, and only once', async () => {
    const now = h.clock.now();
    const raw = {
      authorId: author.id,
      title: '옛 글',
      category: 'EMPTY',
      prefixCategory: 'DEFAULT',
      fixed: false,
      imageUrls: [],
      loveCount: 0,
      commentCount: 0,
      deleted: false,
      createdAt: now,
      updatedAt: now,
    };
    const unsafe = '<p>옛 본문</p><script>alert(1)</script><a href="javascript:alert(2)" onmouseover="x()">옛 링크</a>';
    // Written around the app, as an older version stored it.
    await h.models.boards.collection.insertOne({
      _id: 90_001,
      ...raw,
      code: unsafe,
      plainText: '옛 본문 alert(1) 옛 링크',
      oneLineContent: '옛 본문 alert(1) 옛 링크',
    } as never);
    await h.models.boards.collection.insertOne({
      _id: 90_002,
      ...raw,
      code: '<p>이미 안전</p>',
      plainText: '이미 안전',
      oneLineContent: '이미 안전',
    } as never);

    await sanitizeStoredBoards(h.ctx);

    const cleaned = await h.models.boards.findById(90_001).lean();
    expect(cleaned?.code).toBe('<p>옛 본문</p><a>옛 링크</a>');
    expect(cleaned?.oneLineContent).toBe('옛 본문 옛 링크');
    expect((await h.models.boards.findById(90_002).lean())?.code).toBe('<p>이미 안전</p>');
    expectSafe((await detail(90_001)).code);

    // Done once per database: a later start does not scan again (an unsafe body written around the app after
    // the migration stays as it is, which shows the marker was honoured).
    await h.models.boards.collection.insertOne({ _id: 90_003, ...raw, code: '<script>x</script><p>t</p>', plainText: 't', oneLineContent: 't' } as never);
    await sanitizeStoredBoards(h.ctx);
    expect((await h.models.boards.findById(90_003).lean())?.code).toBe('<script>x</script><p>t</p>');
  });
});
