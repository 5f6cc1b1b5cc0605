import { communityCommentCreated } from '@binzip/events';
import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { ISO_OFFSET, postBoard, postComment } from './helpers';

let h: ServiceHarness<CommunityModels>;
let author: TestPerson;
let commenter: TestPerson;
let stranger: TestPerson;
let admin: TestPerson;
beforeAll(async () => {
  h = await startServiceHarness('ccomments', { models: communityModels, initModels, buildApp });
  author = await addMember(h.connection, '글쓴이');
  commenter = await addMember(h.connection, '댓글러');
  stranger = await addMember(h.connection, '지나가는이');
  admin = await addAdmin(h.connection, '관리자');
});
afterAll(() => h.close());

/** `count` members who take part in one test. */
const members = (count: number, name: string) => Promise.all(Array.from({ length: count }, (_, i) => addMember(h.connection, `${name}${i}`)));

const boardDetail = async (id: number) => (await request(h.app).get(`/api/v1/boards/${id}`)).body.data;

describe('comments', () => {
  test('create: returns the id, counts on the board, lists oldest first with the spec fields', async () => {
    const board = await postBoard(h.app, author, { title: '댓글 받을 글' });
    const res = await request(h.app).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: board, content: '좋은 글이네요' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 'SUCCESS', message: '성공', data: expect.any(Number) });
    const second = await postComment(h.app, author, board, '감사합니다');

    const list = await request(h.app).get(`/api/v1/comments/${board}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { commentId: res.body.data, nickName: '댓글러', content: '좋은 글이네요', createdAt: expect.stringMatching(ISO_OFFSET) },
      { commentId: second, nickName: '글쓴이', content: '감사합니다', createdAt: expect.stringMatching(ISO_OFFSET) },
    ]);
    expect(Object.keys(list.body.data[0])).toEqual(['commentId', 'nickName', 'content', 'createdAt']);
    const detail = await boardDetail(board);
    expect(detail.commentCount).toBe(2);
    expect(detail.comments).toEqual(list.body.data);
  });

  test("each comment carries its community.comment.created event in its own document (also on one's own board)", async () => {
    const board = await postBoard(h.app, author, { title: '이벤트 글' });
    const fromOther = await postComment(h.app, commenter, board, '남의 글에 댓글');
    const fromAuthor = await postComment(h.app, author, board, '내 글에 댓글');
    const stored = await h.models.comments
      .find({ _id: { $in: [fromOther, fromAuthor] } })
      .sort({ _id: 1 })
      .lean();
    expect(stored.map((c) => c.pendingEvents.length)).toEqual([1, 1]);
    const [event] = stored[0].pendingEvents;
    expect(event.subject).toBe('community.comment.created');
    const payload = communityCommentCreated.schema.parse(event.data);
    expect(payload).toEqual({
      v: 1,
      eventId: event.id,
      boardId: board,
      boardTitle: '이벤트 글',
      boardAuthorId: author.id,
      commentId: fromOther,
      commenterId: commenter.id,
      commenterNickName: '댓글러',
      content: '남의 글에 댓글',
      occurredAt: stored[0].createdAt.toISOString(),
    });
    const own = communityCommentCreated.schema.parse(stored[1].pendingEvents[0].data);
    expect(own).toMatchObject({ boardAuthorId: author.id, commenterId: author.id, commentId: fromAuthor });
    expect(own.eventId).not.toBe(payload.eventId);
  });

  test.each([
    ['no content', { boardId: 1 }],
    ['blank content', { boardId: 1, content: '  \n ' }],
    ['content too long', { boardId: 1, content: 'x'.repeat(1001) }],
    ['boardId as non-decimal text', { boardId: '1e0', content: 'x' }],
    ['boardId as padded text', { boardId: ' 1', content: 'x' }],
    ['boardId zero', { boardId: 0, content: 'x' }],
    ['boardId fraction', { boardId: 1.5, content: 'x' }],
    ['boardId huge', { boardId: 1e300, content: 'x' }],
    ['content object', { boardId: 1, content: { $gt: '' } }],
    ['unknown field', { boardId: 1, content: 'x', authorId: 5 }],
  ])('create rejects %s with C0002 and stores nothing', async (_name, body) => {
    const before = await h.models.comments.countDocuments();
    expectError(await request(h.app).post('/api/v1/comments').set('Authorization', commenter.token).send(body), 400, 'C0002');
    expect(await h.models.comments.countDocuments()).toBe(before);
  });

  test("a comment whose insert fails gives its board's count back (the insert and the count go together)", async () => {
    const board = await postBoard(h.app, author);
    const last = await postComment(h.app, commenter, board, '먼저 쓴 댓글');
    // The comment counter one step back: the next comment takes the last one's id, and its insert is refused.
    await h.connection.collection<{ _id: string; seq: number }>('counters').updateOne({ _id: 'comment' }, { $inc: { seq: -1 } });
    const refused = await request(h.app).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: board, content: '겹친 댓글' });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect((await boardDetail(board)).commentCount).toBe(1);
    expect(await h.models.comments.countDocuments({ boardId: board })).toBe(1);
    expect((await h.models.comments.findById(last).lean())?.content).toBe('먼저 쓴 댓글');
    // The counter is past the taken id again: the next comment is stored and counted.
    await postComment(h.app, commenter, board, '다음 댓글');
    expect((await boardDetail(board)).commentCount).toBe(2);
  });

  test('create: needs a token; the board must exist and be live', async () => {
    const board = await postBoard(h.app, author);
    expectError(await request(h.app).post('/api/v1/comments').send({ boardId: board, content: 'x' }), 401, 'J0000');
    expectError(await request(h.app).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: 987654, content: 'x' }), 404, 'C0001');
    await request(h.app).delete(`/api/v1/boards/${board}`).set('Authorization', author.token).expect(200);
    expectError(await request(h.app).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: board, content: 'x' }), 404, 'C0001');
    expect(await h.models.comments.countDocuments({ boardId: board })).toBe(0);
  });

  test('list: unknown board C0001, bad id C0002', async () => {
    expectError(await request(h.app).get('/api/v1/comments/987654'), 404, 'C0001');
    const bad = await request(h.app).get('/api/v1/comments/abc');
    expectError(bad, 400, 'C0002');
    // One path template serves board ids and comment ids: each operation names its own.
    expect(bad.body.message).toBe('게시글 번호 값이 올바르지 않습니다.');
  });

  test('update: author only (not even an admin), board must match, returns the id', async () => {
    const board = await postBoard(h.app, author);
    const other = await postBoard(h.app, author);
    const comment = await postComment(h.app, commenter, board, '원래 댓글');
    const put = (auth: string, body: object) => request(h.app).put(`/api/v1/comments/${comment}`).set('Authorization', auth).send(body);

    expectError(await put(stranger.token, { boardId: board, content: '남이 고침' }), 403, 'C0003');
    expectError(await put(author.token, { boardId: board, content: '글쓴이가 고침' }), 403, 'C0003');
    expectError(await put(admin.token, { boardId: board, content: '관리자가 고침' }), 403, 'C0003');
    expectError(await put(commenter.token, { boardId: other, content: '다른 글' }), 404, 'C0001');
    expectError(await put(commenter.token, { boardId: board, content: '' }), 400, 'C0002');
    expectError(await put(commenter.token, { content: '보드 없음' }), 400, 'C0002');
    expectError(await request(h.app).put(`/api/v1/comments/${comment}`).send({ boardId: board, content: 'x' }), 401, 'J0000');
    expectError(await request(h.app).put('/api/v1/comments/987654').set('Authorization', commenter.token).send({ boardId: board, content: 'x' }), 404, 'C0001');
    expect((await request(h.app).get(`/api/v1/comments/${board}`)).body.data[0].content).toBe('원래 댓글');

    const ok = await put(commenter.token, { boardId: board, content: '고친 댓글' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toBe(comment);
    expect((await request(h.app).get(`/api/v1/comments/${board}`)).body.data[0]).toMatchObject({ commentId: comment, content: '고친 댓글' });
  });

  test('delete: author or admin; the count follows; a second delete is C0001; the pending event survives', async () => {
    const board = await postBoard(h.app, author);
    const a = await postComment(h.app, commenter, board, '지울 댓글');
    const b = await postComment(h.app, commenter, board, '관리자가 지울 댓글');
    const c = await postComment(h.app, commenter, board, '남는 댓글');
    expect((await boardDetail(board)).commentCount).toBe(3);

    expectError(await request(h.app).delete(`/api/v1/comments/${a}`).set('Authorization', stranger.token), 403, 'C0003');
    expectError(await request(h.app).delete(`/api/v1/comments/${a}`).set('Authorization', author.token), 403, 'C0003');
    expectError(await request(h.app).delete(`/api/v1/comments/${a}`), 401, 'J0000');
    const deleted = await request(h.app).delete(`/api/v1/comments/${a}`).set('Authorization', commenter.token);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect((await request(h.app).delete(`/api/v1/comments/${b}`).set('Authorization', admin.token)).status).toBe(200);
    expectError(await request(h.app).delete(`/api/v1/comments/${a}`).set('Authorization', commenter.token), 404, 'C0001');
    expectError(await request(h.app).put(`/api/v1/comments/${a}`).set('Authorization', commenter.token).send({ boardId: board, content: 'x' }), 404, 'C0001');
    const bad = await request(h.app).delete('/api/v1/comments/0').set('Authorization', commenter.token);
    expectError(bad, 400, 'C0002');
    expect(bad.body.message).toBe('댓글 번호 값이 올바르지 않습니다.');

    const detail = await boardDetail(board);
    expect(detail.commentCount).toBe(1);
    expect(detail.comments.map((x: { commentId: number }) => x.commentId)).toEqual([c]);
    expect((await h.models.comments.findById(a).lean())?.pendingEvents).toHaveLength(1);
  });

  test('comments of a deleted board cannot be edited or deleted', async () => {
    const board = await postBoard(h.app, author);
    const comment = await postComment(h.app, commenter, board);
    await request(h.app).delete(`/api/v1/boards/${board}`).set('Authorization', author.token).expect(200);
    expectError(
      await request(h.app).put(`/api/v1/comments/${comment}`).set('Authorization', commenter.token).send({ boardId: board, content: 'x' }),
      404,
      'C0001',
    );
    expectError(await request(h.app).delete(`/api/v1/comments/${comment}`).set('Authorization', commenter.token), 404, 'C0001');
  });

  test('my comments: one row per comment, newest first, live comments on live boards, current board title', async () => {
    const me = await addMember(h.connection, '나');
    const first = await postBoard(h.app, author, { title: '첫 글' });
    const second = await postBoard(h.app, author, { title: '둘째 글' });
    const gone = await postBoard(h.app, author, { title: '사라질 글' });
    const c1 = await postComment(h.app, me, first, '하나');
    const c2 = await postComment(h.app, me, second, '둘');
    const c3 = await postComment(h.app, me, first, '셋');
    const c4 = await postComment(h.app, me, first, '지운 댓글');
    await postComment(h.app, me, gone, '사라질 글의 댓글');
    await postComment(h.app, stranger, first, '남의 댓글');
    await request(h.app).delete(`/api/v1/comments/${c4}`).set('Authorization', me.token).expect(200);
    await request(h.app).delete(`/api/v1/boards/${gone}`).set('Authorization', author.token).expect(200);
    await request(h.app)
      .put(`/api/v1/boards/${second}`)
      .set('Authorization', author.token)
      .send({ title: '둘째 글 (수정)', code: 'x', prefixCategory: 'DEFAULT' })
      .expect(200);

    const res = await request(h.app).get('/api/v1/boards/my/comment').set('Authorization', me.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ size: 10, number: 0, totalElements: 3, totalPages: 1, numberOfElements: 3, first: true, last: true, empty: false });
    expect(res.body.data.content).toEqual([
      { commentId: c3, boardId: first, title: '첫 글', commentContent: '셋' },
      { commentId: c2, boardId: second, title: '둘째 글 (수정)', commentContent: '둘' },
      { commentId: c1, boardId: first, title: '첫 글', commentContent: '하나' },
    ]);
    const paged = await request(h.app).get('/api/v1/boards/my/comment').set('Authorization', me.token).query({ page: 1, size: 2 });
    expect(paged.body.data).toMatchObject({ number: 1, size: 2, totalElements: 3, totalPages: 2, last: true, content: [{ commentId: c1 }] });
    expectError(await request(h.app).get('/api/v1/boards/my/comment'), 401, 'J0000');
  });
});

describe('loves', () => {
  test('put, get, put again (P0000), delete, delete again (C0001); loveCount follows', async () => {
    const board = await postBoard(h.app, author);
    const lover = commenter.token;
    const put = await request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', lover);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ code: 'SUCCESS', message: '성공', data: board });
    expect((await request(h.app).get(`/api/v1/loves/${board}`).set('Authorization', lover)).body).toEqual({ code: 'SUCCESS', message: '성공', data: true });
    expect((await request(h.app).get(`/api/v1/loves/${board}`).set('Authorization', stranger.token)).body.data).toBe(false);

    const again = await request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', lover);
    expectError(again, 400, 'P0000');
    expect(again.body.message).toBe('이미 좋아요를 한 게시글입니다.');
    expect((await boardDetail(board)).loveCount).toBe(1);

    const removed = await request(h.app).delete(`/api/v1/loves/${board}`).set('Authorization', lover);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ code: 'SUCCESS', message: '성공' });
    expect((await request(h.app).get(`/api/v1/loves/${board}`).set('Authorization', lover)).body.data).toBe(false);
    expectError(await request(h.app).delete(`/api/v1/loves/${board}`).set('Authorization', lover), 404, 'C0001');
    expect((await boardDetail(board)).loveCount).toBe(0);
  });

  test('every love endpoint needs a token, a valid id and a live board', async () => {
    const board = await postBoard(h.app, author);
    for (const method of ['put', 'delete', 'get'] as const) {
      expectError(await request(h.app)[method](`/api/v1/loves/${board}`), 401, 'J0000');
      expectError(await request(h.app)[method]('/api/v1/loves/x1').set('Authorization', commenter.token), 400, 'C0002');
      expectError(await request(h.app)[method]('/api/v1/loves/987654').set('Authorization', commenter.token), 404, 'C0001');
    }
    await request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', commenter.token).expect(200);
    await request(h.app).delete(`/api/v1/boards/${board}`).set('Authorization', author.token).expect(200);
    for (const method of ['put', 'delete', 'get'] as const) {
      expectError(await request(h.app)[method](`/api/v1/loves/${board}`).set('Authorization', commenter.token), 404, 'C0001');
    }
  });

  test('my loved boards: most recently loved first, own-list fields, live boards only', async () => {
    const me = await addMember(h.connection, '나도');
    const a = await postBoard(h.app, author, { title: 'A', imageUrls: ['https://img.example.com/a.png'] });
    const b = await postBoard(h.app, author, { title: 'B' });
    const c = await postBoard(h.app, author, { title: 'C' });
    const d = await postBoard(h.app, author, { title: 'D' });
    for (const id of [b, a, c, d]) {
      h.clock.advance(60_000);
      await request(h.app).put(`/api/v1/loves/${id}`).set('Authorization', me.token).expect(200);
    }
    await request(h.app).delete(`/api/v1/loves/${c}`).set('Authorization', me.token).expect(200);
    await request(h.app).delete(`/api/v1/boards/${d}`).set('Authorization', author.token).expect(200);
    await postComment(h.app, stranger, a);

    const res = await request(h.app).get('/api/v1/boards/my/love').set('Authorization', me.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ size: 10, totalElements: 2, numberOfElements: 2 });
    expect(res.body.data.content.map((x: { boardId: number }) => x.boardId)).toEqual([a, b]);
    expect(res.body.data.content[0]).toEqual({
      boardId: a,
      title: 'A',
      oneLineContent: '본문 내용',
      createdAt: expect.stringMatching(ISO_OFFSET),
      imageUrl: 'https://img.example.com/a.png',
      category: 'EMPTY',
      prefixCategory: 'DEFAULT',
      commentCnt: 1,
    });
    expectError(await request(h.app).get('/api/v1/boards/my/love'), 401, 'J0000');
  });
});

describe('counts under concurrent requests', () => {
  test('parallel loves, unloves, double loves and comments leave counts equal to the stored rows', async () => {
    const board = await postBoard(h.app, author);
    const users = await members(20, '팬');
    const lovesOk = await Promise.all(users.map((u) => request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', u.token)));
    expect(lovesOk.map((r) => r.status)).toEqual(users.map(() => 200));

    // half of them take it back while 10 newcomers love, one newcomer five times at once, and 15 comments land
    const leaving = users.slice(0, 10);
    const newcomers = await members(10, '새팬');
    const eager = await addMember(h.connection, '급한팬');
    const commenters = await members(15, '동시댓글러');
    const results = await Promise.all([
      ...leaving.map((u) => request(h.app).delete(`/api/v1/loves/${board}`).set('Authorization', u.token)),
      ...newcomers.map((u) => request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', u.token)),
      ...Array.from({ length: 5 }, () => request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', eager.token)),
      ...commenters.map((u, i) =>
        request(h.app)
          .post('/api/v1/comments')
          .set('Authorization', u.token)
          .send({ boardId: board, content: `동시 댓글 ${i}` }),
      ),
    ]);
    const statuses = results.map((r) => r.status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    const eagerResults = results
      .slice(20, 25)
      .map((r) => r.body.code)
      .sort();
    expect(eagerResults).toEqual(['P0000', 'P0000', 'P0000', 'P0000', 'SUCCESS']);
    expect(statuses.slice(25)).toEqual(Array(15).fill(200));

    // and some of those comments are deleted in parallel, one of them twice at once
    const commentIds = results.slice(25).map((r) => r.body.data as number);
    const deletes = await Promise.all([
      ...commentIds.slice(0, 5).map((id, i) => request(h.app).delete(`/api/v1/comments/${id}`).set('Authorization', commenters[i].token)),
      request(h.app).delete(`/api/v1/comments/${commentIds[0]}`).set('Authorization', commenters[0].token),
    ]);
    expect(deletes.map((r) => r.body.code).sort()).toEqual(['C0001', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);

    const loveRows = await h.models.loves.countDocuments({ boardId: board });
    const commentRows = await h.models.comments.countDocuments({ boardId: board, deleted: false });
    expect(loveRows).toBe(21);
    expect(commentRows).toBe(10);
    const detail = await boardDetail(board);
    expect({ loveCount: detail.loveCount, commentCount: detail.commentCount, comments: detail.comments.length }).toEqual({
      loveCount: loveRows,
      commentCount: commentRows,
      comments: commentRows,
    });
  });

  test('a board deleted while loves and comments race in leaves nothing counted on it that does not exist', async () => {
    const board = await postBoard(h.app, author);
    const racers = await members(10, '경쟁자');
    const results = await Promise.all([
      ...racers.map((racer) => request(h.app).put(`/api/v1/loves/${board}`).set('Authorization', racer.token)),
      ...racers.map((racer) => request(h.app).post('/api/v1/comments').set('Authorization', racer.token).send({ boardId: board, content: '경쟁' })),
      request(h.app).delete(`/api/v1/boards/${board}`).set('Authorization', author.token),
    ]);
    for (const res of results) expect(['SUCCESS', 'C0001']).toContain(res.body.code);
    const stored = await h.models.boards.findById(board).lean();
    expect(stored?.deleted).toBe(true);
    expect(stored?.loveCount).toBe(await h.models.loves.countDocuments({ boardId: board }));
    expect(stored?.commentCount).toBe(await h.models.comments.countDocuments({ boardId: board, deleted: false }));
    // nothing of it shows in the racers' own lists
    for (const racer of [racers[0], racers[5], racers[9]]) {
      const loved = await request(h.app).get('/api/v1/boards/my/love').set('Authorization', racer.token);
      const commented = await request(h.app).get('/api/v1/boards/my/comment').set('Authorization', racer.token);
      expect(loved.body.data.content).toEqual([]);
      expect(commented.body.data.content).toEqual([]);
    }
  });
});
