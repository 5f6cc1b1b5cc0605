import request from 'supertest';
import { expectError } from '../../../test/support';
import { addAdmin, addMember, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { boardPayload, postBoard } from './helpers';

let h: ServiceHarness<CommunityModels>;
let admin: TestPerson;
let member: TestPerson;

beforeAll(async () => {
  h = await startServiceHarness('communitybackoffice', { models: communityModels, initModels, buildApp });
  admin = await addAdmin(h.connection, '운영자');
  member = await addMember(h.connection, '회원');
});
afterAll(() => h.close());

const pin = (boardId: number | string, body: unknown, auth: string | null = admin.token) => {
  const test = request(h.app).put(`/api/v1/admin/boards/${boardId}/fixed`);
  return (auth ? test.set('Authorization', auth) : test).send(body as object);
};
const HANGUL = /[가-힣]/;
const advertisement = () => postBoard(h.app, member, { prefixCategory: 'ADVERTISEMENT', category: null });

describe('PUT /api/v1/admin/boards/{boardId}/fixed', () => {
  it('401 without a token, 403 J0006 for a member, C0002 for bad input, C0001 for no board', async () => {
    const id = await advertisement();
    const expectKoreanError = (res: request.Response, status: number, code: string) => {
      expectError(res, status, code);
      expect(res.body.message).toMatch(HANGUL);
    };
    expectKoreanError(await pin(id, { fixed: true }, null), 401, 'J0000');
    expectKoreanError(await pin(id, { fixed: true }, member.token), 403, 'J0006');
    for (const body of [{}, { fixed: 'yes' }, { fixed: true, extra: 1 }]) expectKoreanError(await pin(id, body), 400, 'C0002');
    expectKoreanError(await pin('abc', { fixed: true }), 400, 'C0002');
    expectKoreanError(await pin(999999, { fixed: true }), 404, 'C0001');
  });

  it('pins and unpins promotion posts only; the pinned post leads the list', async () => {
    const other = await postBoard(h.app, member, { prefixCategory: 'DEFAULT' });
    expectError(await pin(other, { fixed: true }), 400, 'C0002');
    const id = await advertisement();
    await advertisement();
    expect((await pin(id, { fixed: true }).expect(200)).body.data).toBe(id);
    const list = await request(h.app).get('/api/v1/boards?prefix=ADVERTISEMENT').expect(200);
    expect(list.body.data.content[0]).toMatchObject({ boardId: id, fixed: true });
    await pin(id, { fixed: false }).expect(200);
    expect((await h.models.boards.findById(id).lean().exec())?.fixed).toBe(false);
  });

  it('at most 10 pinned at once: the 11th is 400 B0001; re-pinning a pinned one and unpinning work', async () => {
    await h.models.boards.updateMany({}, { $set: { fixed: false } }).exec();
    const ids: number[] = [];
    for (let i = 0; i < 11; i++) ids.push(await advertisement());
    for (const id of ids.slice(0, 10)) await pin(id, { fixed: true }).expect(200);
    const res = await pin(ids[10], { fixed: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'B0001', message: '고정할 수 있는 게시글 수를 초과했습니다.' });
    expect(await h.models.boards.countDocuments({ fixed: true, deleted: false })).toBe(10);
    await pin(ids[0], { fixed: true }).expect(200);
    await pin(ids[0], { fixed: false }).expect(200);
    await pin(ids[10], { fixed: true }).expect(200);
    expect(await h.models.boards.countDocuments({ fixed: true, deleted: false })).toBe(10);
  });

  it('25 pins racing for 10 free slots pin exactly 10; the other 15 are B0001', async () => {
    await h.models.boards.updateMany({}, { $set: { fixed: false } }).exec();
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) ids.push(await advertisement());
    const answers = await Promise.all(ids.map((id) => pin(id, { fixed: true })));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(10);
    expect(answers.filter((res) => res.status !== 200).map((res) => res.body.code)).toEqual(Array(15).fill('B0001'));
    expect(await h.models.boards.countDocuments({ fixed: true, deleted: false })).toBe(10);
  });

  it('posts written pinned through POST /boards at once take exactly the free slots', async () => {
    await h.models.boards.updateMany({}, { $set: { fixed: false } }).exec();
    for (let i = 0; i < 7; i++) await pin(await advertisement(), { fixed: true }).expect(200);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        request(h.app)
          .post('/api/v1/boards')
          .set('Authorization', admin.token)
          .send(boardPayload({ prefixCategory: 'ADVERTISEMENT', category: null, fixed: true, title: `고정 ${i}` })),
      ),
    );
    expect(answers.filter((res) => res.status === 200)).toHaveLength(3);
    expect(await h.models.boards.countDocuments({ fixed: true, deleted: false })).toBe(10);
  });

  it('the same limit holds for a post written pinned through POST or PUT /boards: nothing is written past it', async () => {
    await h.models.boards.updateMany({}, { $set: { fixed: false } }).exec();
    const pinnedPost = (over: Record<string, unknown> = {}) => boardPayload({ prefixCategory: 'ADVERTISEMENT', category: null, fixed: true, ...over });
    for (let i = 0; i < 10; i++) await postBoard(h.app, admin, pinnedPost());
    const boardsBefore = await h.models.boards.countDocuments({ deleted: false });

    const created = await request(h.app)
      .post('/api/v1/boards')
      .set('Authorization', admin.token)
      .send(pinnedPost({ title: '열한 번째' }));
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ code: 'B0001', message: '고정할 수 있는 게시글 수를 초과했습니다.' });
    expect(await h.models.boards.countDocuments({ deleted: false })).toBe(boardsBefore);

    const own = await postBoard(h.app, admin, pinnedPost({ title: '원래 제목', fixed: false }));
    const edited = await request(h.app)
      .put(`/api/v1/boards/${own}`)
      .set('Authorization', admin.token)
      .send(pinnedPost({ title: '바뀐 제목' }));
    expect(edited.status).toBe(400);
    expect(edited.body.code).toBe('B0001');
    expect(await h.models.boards.findById(own).lean().exec()).toMatchObject({ title: '원래 제목', fixed: false });
    expect(await h.models.boards.countDocuments({ fixed: true, deleted: false })).toBe(10);

    // Editing a post that is already pinned keeps its slot; unpinning one frees a slot for another.
    const [first] = await h.models.boards.find({ fixed: true, deleted: false }, { _id: 1 }).sort({ _id: 1 }).limit(1).lean().exec();
    await request(h.app)
      .put(`/api/v1/boards/${first?._id}`)
      .set('Authorization', admin.token)
      .send(pinnedPost({ title: '고친 공지' }))
      .expect(200);
    await pin(first?._id ?? 0, { fixed: false }).expect(200);
    await request(h.app)
      .put(`/api/v1/boards/${own}`)
      .set('Authorization', admin.token)
      .send(pinnedPost({ title: '바뀐 제목' }))
      .expect(200);
    expect(await h.models.boards.findById(own).lean().exec()).toMatchObject({ title: '바뀐 제목', fixed: true });
  });

  it('racing edits for the last pinned slot: exactly one takes it; the refused edit leaves the post as it was', async () => {
    await h.models.boards.updateMany({}, { $set: { fixed: false } }).exec();
    const post = (over: Record<string, unknown>) => boardPayload({ prefixCategory: 'ADVERTISEMENT', category: null, ...over });
    for (let i = 0; i < 9; i++) await postBoard(h.app, admin, post({ fixed: true }));
    const racers = [await postBoard(h.app, admin, post({ title: '원래 A' })), await postBoard(h.app, admin, post({ title: '원래 B' }))];
    const answers = await Promise.all(
      racers.map((id, i) =>
        request(h.app)
          .put(`/api/v1/boards/${id}`)
          .set('Authorization', admin.token)
          .send(post({ title: `바뀐 ${i}`, fixed: true })),
      ),
    );
    expect(await h.models.boards.countDocuments({ fixed: true, deleted: false })).toBe(10);
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    for (const [i, res] of answers.entries()) {
      const stored = await h.models.boards.findById(racers[i]).lean().exec();
      if (res.status === 200) expect(stored).toMatchObject({ title: `바뀐 ${i}`, fixed: true });
      else {
        expect(res.body.code).toBe('B0001');
        expect(stored).toMatchObject({ title: i === 0 ? '원래 A' : '원래 B', fixed: false });
      }
    }
  });
});
