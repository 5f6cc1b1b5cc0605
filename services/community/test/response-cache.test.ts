import { CACHE_CHANGED_HEADER, CACHE_OFFER_HEADER, cacheChangedSubject, readOffer, ResponseCache, type EventBus, type PageObject } from '@binzip/shared';
import { communityCommentCreated } from '@binzip/events';
import type { Subscription } from '@nats-io/nats-core';
import type { Express } from 'express';
import request from 'supertest';
import { eventually, testEnv } from '../../../test/support';
import { addAdmin, addMember, cachedInstance, startServiceHarness, type ServiceHarness, type TestPerson } from '../../../test/support/service';
import { buildApp } from '../src/service';
import type { BoardDetail, BoardItem } from '../src/domain/render';
import { communityModels, initModels, type CommunityModels } from '../src/models';
import { BOARD_ANSWERS, boardKey, boardLovesKey, commentCreatedEvents, commenterKey, listedBoardKey, loveOrderKey, loverKey } from '../src/cache-keys';
import { postBoard, postComment } from './helpers';

/**
 * Community's answers and its writes' keys (src/cache-keys.ts) on two instances of the service, each with
 * its own cache listening on the real NATS as main.ts builds them, over one real MongoDB-protocol store. "Kept" is
 * shown by changing a board behind the service's back (`retitle`): only the cache can still show the old title.
 */

let h: ServiceHarness<CommunityModels>;
let author: TestPerson;
let commenter: TestPerson;
let lover: TestPerson;
let bus: EventBus;
const caches: ResponseCache[] = [];
let first: Express;
let second: Express;
/** What the instances announced on `cache.community.changed`. */
const announcements: string[] = [];
let announced: Subscription;

beforeAll(async () => {
  h = await startServiceHarness('commcache', { models: communityModels, initModels, buildApp });
  author = await addMember(h.connection, '캐시글쓴이');
  commenter = await addMember(h.connection, '캐시댓글러');
  lover = await addMember(h.connection, '캐시좋아요');
  bus = await h.bus();
  const instance = () => {
    const { app, cache } = cachedInstance(h, { buildApp }, bus, 'community', [commentCreatedEvents]);
    caches.push(cache);
    return app;
  };
  first = instance();
  second = instance();
  announced = bus.connection.subscribe(bus.subject(cacheChangedSubject('community')), {
    callback: (_err, msg) => {
      announcements.push(msg.string());
    },
  });
  await bus.connection.flush();
});

afterAll(async () => {
  announced.unsubscribe();
  caches.forEach((cache) => cache.stop());
  await h.close();
});

// Every test starts with empty caches: whatever an earlier test kept has expired.
beforeEach(() => h.clock.advance(BOARD_ANSWERS.ttlMs));

let tokens = 0;
/** A word only one test's boards carry, to search them out of the shared database. */
const token = () => `tok${++tokens}x${Date.now().toString(36)}`;

const get = async <T>(app: Express, path: string): Promise<T> => {
  const res = await request(app).get(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as T;
};
const detail = (app: Express, boardId: number) => get<BoardDetail>(app, `/api/v1/boards/${boardId}`);
const list = (app: Express, query: string) => get<PageObject<BoardItem>>(app, `/api/v1/boards?${query}`);
const preview = (app: Express, query: string) => get<BoardItem[]>(app, `/api/v1/boards/preview?${query}`);
const itemOf = (items: BoardItem[], boardId: number): BoardItem => {
  const item = items.find((i) => i.boardId === boardId);
  if (!item) throw new Error(`board ${boardId} is not among ${JSON.stringify(items.map((i) => i.boardId))}`);
  return item;
};

/** Changes a board's title behind the service's back: only the cache's own rules can make the change show. */
const retitle = (boardId: number, title: string) => h.models.boards.updateOne({ _id: boardId }, { $set: { title } }).exec();

/** Waits until every announcement made so far has reached every subscription (the instances share the connection). */
const delivered = () => bus.connection.flush();

describe('one instance: a write forgets only the answers it could have changed', () => {
  it("a comment on A forgets A's detail, comments and every list and preview showing A at once; B's detail and a page without A are kept", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A`, prefixCategory: 'INTRO', category: 'TREND' });
    const b = await postBoard(h.app, author, { title: `${t} B`, prefixCategory: 'INTRO', category: 'TREND' });
    const pages = {
      onlyA: `prefix=INTRO&search=${t}%20A`,
      both: `prefix=INTRO&search=${t}`,
      onlyB: `prefix=INTRO&search=${t}%20B`,
      onlyBPopular: `prefix=INTRO&search=${t}%20B&order=POPULAR`,
    };
    const intro = 'prefix=INTRO&category=TREND&limit=50';
    for (const query of Object.values(pages)) await list(first, query);
    await preview(first, intro);
    await detail(first, a);
    await detail(first, b);
    expect(await get(first, `/api/v1/comments/${a}`)).toEqual([]);
    expect(await get(first, `/api/v1/comments/${b}`)).toEqual([]);
    await retitle(a, `${t} A 고침`);
    await retitle(b, `${t} B 고침`);
    await h.models.comments.create({
      _id: 900_001,
      boardId: b,
      authorId: commenter.id,
      content: '몰래 단 댓글',
      deleted: false,
      boardDeleted: false,
      createdAt: h.clock.now(),
      updatedAt: h.clock.now(),
      pendingEvents: [],
    });

    await postComment(first, commenter, a, '새 댓글');

    // Everything that shows A, at once (the clock stands still).
    const shownA = { title: `${t} A 고침`, commentCount: 1 };
    expect(await detail(first, a)).toMatchObject({ ...shownA, comments: [expect.objectContaining({ content: '새 댓글' })] });
    expect(await get(first, `/api/v1/comments/${a}`)).toEqual([expect.objectContaining({ content: '새 댓글', nickName: '캐시댓글러' })]);
    expect(itemOf((await list(first, pages.onlyA)).content, a)).toMatchObject(shownA);
    expect(itemOf((await list(first, pages.both)).content, a)).toMatchObject(shownA);
    expect(itemOf(await preview(first, intro), a)).toMatchObject(shownA);
    // What does not show A is kept: B's detail and comments, and the pages that show only B (RECENT and POPULAR).
    expect(await detail(first, b)).toMatchObject({ title: `${t} B`, commentCount: 0, comments: [] });
    expect(await get(first, `/api/v1/comments/${b}`)).toEqual([]);
    expect((await list(first, pages.onlyB)).content.map((i) => i.title)).toEqual([`${t} B`]);
    expect((await list(first, pages.onlyBPopular)).content.map((i) => i.title)).toEqual([`${t} B`]);

    h.clock.advance(BOARD_ANSWERS.ttlMs);
    expect((await detail(first, b)).title).toBe(`${t} B 고침`);
    expect(await get(first, `/api/v1/comments/${b}`)).toEqual([expect.objectContaining({ content: '몰래 단 댓글' })]);
    expect((await list(first, pages.onlyB)).content.map((i) => i.title)).toEqual([`${t} B 고침`]);
  });

  it("editing or deleting a comment forgets its board's answers (the delete looks its board up) and keeps the others", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    const comment = await postComment(h.app, commenter, a, '처음 댓글');
    await detail(first, a);
    await detail(first, b);
    await retitle(b, `${t} B 고침`);

    const edited = await request(first).put(`/api/v1/comments/${comment}`).set('Authorization', commenter.token).send({ boardId: a, content: '고친 댓글' });
    expect(edited.status).toBe(200);
    expect((await detail(first, a)).comments.map((c) => c.content)).toEqual(['고친 댓글']);
    expect((await request(first).delete(`/api/v1/comments/${comment}`).set('Authorization', commenter.token)).status).toBe(200);
    expect(await detail(first, a)).toMatchObject({ commentCount: 0, comments: [] });
    expect((await detail(first, b)).title).toBe(`${t} B`);
  });

  it('a love or unlove forgets the love-ordered lists and previews of its board type, and keeps recent pages without the board and other types', async () => {
    const t = token();
    const one = await postBoard(h.app, author, { title: `${t} one` });
    const two = await postBoard(h.app, author, { title: `${t} two` });
    const intro = await postBoard(h.app, author, { title: `${t} intro`, prefixCategory: 'INTRO' });
    const pages = {
      popularBoth: `prefix=DEFAULT&search=${t}&order=POPULAR`,
      popularTwo: `prefix=DEFAULT&search=${t}%20two&order=POPULAR`,
      recentTwo: `prefix=DEFAULT&search=${t}%20two`,
      popularIntro: `prefix=INTRO&search=${t}&order=POPULAR`,
    };
    // The top board of the promotion and free boards (`two`, the newest), and every introduction.
    const previews = { community: 'prefix=COMMUNITY&limit=1', intro: 'prefix=INTRO&limit=50' };
    // Equal loves and times: the later id leads.
    expect((await list(first, pages.popularBoth)).content.map((i) => i.boardId)).toEqual([two, one]);
    expect((await preview(first, previews.community)).map((i) => i.boardId)).toEqual([two]);
    for (const query of Object.values(pages)) await list(first, query);
    for (const query of Object.values(previews)) await preview(first, query);
    await detail(first, one);
    await retitle(two, `${t} two 고침`);
    await retitle(intro, `${t} intro 고침`);

    expect((await request(first).put(`/api/v1/loves/${one}`).set('Authorization', lover.token)).status).toBe(200);

    expect((await list(first, pages.popularBoth)).content.map((i) => i.boardId)).toEqual([one, two]);
    expect((await detail(first, one)).loveCount).toBe(1);
    // Forgotten although it does not show the loved board: the love could have moved it onto the page.
    expect((await list(first, pages.popularTwo)).content[0].title).toBe(`${t} two 고침`);
    expect((await preview(first, previews.community)).map((i) => i.boardId)).toEqual([one]);
    // Kept: a recent page without the loved board, and the other board type's popular page and preview.
    expect((await list(first, pages.recentTwo)).content[0].title).toBe(`${t} two`);
    expect((await list(first, pages.popularIntro)).content[0].title).toBe(`${t} intro`);
    expect(itemOf(await preview(first, previews.intro), intro).title).toBe(`${t} intro`);

    expect((await request(first).delete(`/api/v1/loves/${one}`).set('Authorization', lover.token)).status).toBe(200);
    expect((await list(first, pages.popularBoth)).content.map((i) => i.boardId)).toEqual([two, one]);
    expect((await preview(first, previews.community)).map((i) => i.boardId)).toEqual([two]);
    expect((await detail(first, one)).loveCount).toBe(0);
    expect((await list(first, pages.popularIntro)).content[0].title).toBe(`${t} intro`);
  });

  it('a write that fails forgets nothing and announces nothing', async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    await detail(first, a);
    await list(first, `prefix=DEFAULT&search=${t}`);
    await retitle(a, `${t} A 고침`);
    await delivered();
    const before = announcements.length;

    const refused = [
      await request(first).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: 987_654, content: '없는 글' }),
      await request(first).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: a, content: '' }),
      await request(first).put(`/api/v1/loves/987654`).set('Authorization', lover.token),
      await request(first).delete(`/api/v1/loves/${a}`).set('Authorization', lover.token),
      await request(first).delete('/api/v1/comments/987654').set('Authorization', commenter.token),
      await request(first).put(`/api/v1/boards/${a}`).set('Authorization', commenter.token).send({ title: 'x', code: '<p>x</p>', prefixCategory: 'DEFAULT' }),
    ];
    expect(refused.map((res) => res.status)).toEqual([404, 400, 404, 404, 404, 403]);
    await delivered();
    expect(announcements.length).toBe(before);
    expect((await detail(first, a)).title).toBe(`${t} A`);
    expect((await list(first, `prefix=DEFAULT&search=${t}`)).content[0].title).toBe(`${t} A`);
  });
});

describe('what the gateway in front is told', () => {
  it("offers an anonymous answer it keeps, with its keys, and no member's; a write's answer names the keys it changed", async () => {
    const a = await postBoard(h.app, author, { title: `${token()} A` });
    const computed = await request(first).get(`/api/v1/boards/${a}`);
    expect(computed.status).toBe(200);
    expect(readOffer(computed.headers[CACHE_OFFER_HEADER])).toEqual({ ttlMs: BOARD_ANSWERS.ttlMs, keys: [boardKey(a)] });
    const asMember = await request(first).get(`/api/v1/boards/${a}`).set('Authorization', commenter.token);
    expect(asMember.status).toBe(200);
    expect(asMember.headers[CACHE_OFFER_HEADER]).toBeUndefined();
    const comment = await request(first).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId: a, content: '게이트웨이에 알릴 댓글' });
    expect(comment.status).toBe(200);
    expect(JSON.parse(String(comment.headers[CACHE_CHANGED_HEADER]))).toEqual({ keys: [boardKey(a), commenterKey(commenter.id)] });
  });
});

describe("a member's own lists, kept per member", () => {
  interface OwnItem {
    boardId: number;
    title: string;
    commentCnt?: number;
  }
  const own = async (app: Express, person: TestPerson, path: string): Promise<OwnItem[]> => {
    const res = await request(app).get(`/api/v1/boards/my${path}?size=50`).set('Authorization', person.token);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body.data as PageObject<OwnItem>).content;
  };
  const titles = (items: OwnItem[]) => items.map((item) => item.title);

  it("a member's comment forgets his list of comments (here and on the other instance), and keeps another member's lists", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    await postComment(h.app, commenter, a, '먼저 단 댓글');
    await postComment(h.app, lover, a, '좋아요 회원의 댓글');
    for (const app of [first, second]) {
      expect(titles(await own(app, commenter, '/comment'))).toContain(`${t} A`);
      await own(app, lover, '/comment');
      await own(app, author, '');
    }
    await retitle(a, `${t} A 고침`);

    await postComment(first, commenter, b, '새 댓글');

    expect(titles(await own(first, commenter, '/comment'))).toEqual(expect.arrayContaining([`${t} B`, `${t} A 고침`]));
    await eventually(async () => titles(await own(second, commenter, '/comment')).includes(`${t} B`));
    // The other member's list shows A only, which the comment on B did not change; the author's posts show B's count.
    for (const app of [first, second]) expect(titles(await own(app, lover, '/comment'))).toContain(`${t} A`);
    expect((await own(first, author, '')).find((item) => item.boardId === b)?.commentCnt).toBe(1);
  });

  it("a comment by someone else on a board in a member's list forgets that list (its count), not lists without the board", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    await postComment(h.app, commenter, a, '내 댓글');
    const other = await postBoard(h.app, lover, { title: `${t} other` });
    expect(titles(await own(first, commenter, '/comment'))).toContain(`${t} A`);
    await own(first, lover, '');
    await retitle(a, `${t} A 고침`);
    await retitle(other, `${t} other 고침`);

    await postComment(first, lover, a, '남의 댓글');

    expect(titles(await own(first, commenter, '/comment'))).toContain(`${t} A 고침`);
    expect(titles(await own(first, lover, ''))).toContain(`${t} other`);
  });

  it("a love or unlove forgets the lover's loved boards, and keeps another member's", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    expect((await request(h.app).put(`/api/v1/loves/${b}`).set('Authorization', commenter.token)).status).toBe(200);
    expect(titles(await own(first, lover, '/love'))).not.toContain(`${t} A`);
    expect(titles(await own(first, commenter, '/love'))).toContain(`${t} B`);
    await retitle(b, `${t} B 고침`);

    expect((await request(first).put(`/api/v1/loves/${a}`).set('Authorization', lover.token)).status).toBe(200);
    expect(titles(await own(first, lover, '/love'))).toContain(`${t} A`);
    expect(titles(await own(first, commenter, '/love'))).toContain(`${t} B`);

    expect((await request(first).delete(`/api/v1/loves/${a}`).set('Authorization', lover.token)).status).toBe(200);
    expect(titles(await own(first, lover, '/love'))).not.toContain(`${t} A`);
  });

  it("an administrator deleting a member's comment forgets that member's list of comments, also a page without it (the author is looked up)", async () => {
    const t = token();
    const admin = await addAdmin(h.connection, `캐시관리자${tokens}`);
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    const older = await postComment(h.app, lover, a, '지워질 댓글');
    await postComment(h.app, lover, b, '남을 댓글');
    const firstPage = async () => {
      const res = await request(first).get('/api/v1/boards/my/comment?size=1').set('Authorization', lover.token);
      return res.body.data as PageObject<OwnItem>;
    };
    const before = await firstPage();
    expect(titles(before.content)).toEqual([`${t} B`]);
    const total = before.totalElements ?? 0;
    expect(total).toBeGreaterThanOrEqual(2);

    expect((await request(first).delete(`/api/v1/comments/${older}`).set('Authorization', admin.token)).status).toBe(200);

    // The page shows B only, which the deletion did not touch: only the author's key can forget it (its total).
    expect((await firstPage()).totalElements).toBe(total - 1);
  });

  it("a member's posts: a new post forgets them; a change behind the service's back does not", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    expect(titles(await own(first, author, ''))).toContain(`${t} A`);
    await retitle(a, `${t} A 고침`);
    expect(titles(await own(first, author, ''))).toContain(`${t} A`);

    await postBoard(first, author, { title: `${t} B` });

    expect(titles(await own(first, author, ''))).toEqual(expect.arrayContaining([`${t} B`, `${t} A 고침`]));
  });
});

describe('while an answer is computed', () => {
  /**
   * Holds the next read of one board (`boards.findOne`, the detail's read of its board) until `release`: the real
   * query still runs, only later, so a change can land while the answer is being computed.
   */
  function holdNextBoardRead(): { reading: Promise<void>; release: () => void } {
    const model = h.models.boards;
    const findOne = model.findOne.bind(model);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let began: () => void = () => undefined;
    const reading = new Promise<void>((resolve) => (began = resolve));
    jest.spyOn(model, 'findOne').mockImplementationOnce(((...args: Parameters<typeof findOne>) => {
      const query = findOne(...args);
      const exec = query.exec.bind(query);
      query.exec = async () => {
        began();
        await released;
        return exec();
      };
      return query;
    }) as never);
    return { reading, release };
  }

  it('an answer computed while one of its keys changed is not stored (it may be torn)', async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const held = holdNextBoardRead();
    const computing = detail(first, a);
    await held.reading;
    // The comments were read before the comment landed, the board (its count) after.
    await postComment(first, commenter, a, '계산 중에 단 댓글');
    held.release();
    expect(await computing).toMatchObject({ commentCount: 1, comments: [] });

    expect(await detail(first, a)).toMatchObject({ commentCount: 1, comments: [expect.objectContaining({ content: '계산 중에 단 댓글' })] });
  });

  it('an answer computed while only other keys changed is stored', async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    const held = holdNextBoardRead();
    const computing = detail(first, b);
    await held.reading;
    await postComment(first, commenter, a, '다른 글에 댓글');
    held.release();
    expect((await computing).title).toBe(`${t} B`);

    await retitle(b, `${t} B 고침`);
    expect((await detail(first, b)).title).toBe(`${t} B`);
  });
});

describe('across instances, through NATS', () => {
  it('a write on one instance forgets the same keys on the other, and announces them', async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    await detail(second, a);
    await detail(second, b);
    await list(second, `prefix=DEFAULT&search=${t}%20B`);
    await retitle(a, `${t} A 고침`);
    await retitle(b, `${t} B 고침`);
    await delivered();
    const before = announcements.length;

    await postComment(first, commenter, a, '다른 인스턴스에서');
    await eventually(async () => (await detail(second, a)).commentCount === 1);
    expect((await detail(second, a)).title).toBe(`${t} A 고침`);
    await delivered();
    expect(announcements.slice(before).map((text) => JSON.parse(text) as unknown)).toEqual([{ keys: [`board:${a}`, `commenter:${commenter.id}`] }]);
    expect((await detail(second, b)).title).toBe(`${t} B`);
    expect((await list(second, `prefix=DEFAULT&search=${t}%20B`)).content[0].title).toBe(`${t} B`);
  });

  it('keeps a board answer for the boards lifetime (longer than a second) while nothing changes it; a love through the other instance shows at once', async () => {
    expect(BOARD_ANSWERS.ttlMs).toBeGreaterThan(1_000);
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    await delivered();
    expect((await detail(second, a)).loveCount).toBe(0);
    await retitle(a, `${t} A 고침`);
    h.clock.advance(BOARD_ANSWERS.ttlMs - 1);
    expect((await detail(second, a)).title).toBe(`${t} A`);
    // The lover sees his own love at once (his requests carry his token), anonymous readers of either instance too.
    expect((await request(first).put(`/api/v1/loves/${a}`).set('Authorization', lover.token)).status).toBe(200);
    expect((await detail(first, a)).loveCount).toBe(1);
    await eventually(async () => (await detail(second, a)).loveCount === 1);
    expect((await detail(second, a)).title).toBe(`${t} A 고침`);
  });

  it('an announcement without keys (an older instance, the user projection) forgets everything; so does one that cannot be read', async () => {
    for (const payload of [undefined, 'not json', '{"keys":"board:1"}']) {
      const t = token();
      const a = await postBoard(h.app, author, { title: `${t} A` });
      await detail(first, a);
      await detail(second, a);
      await list(second, `prefix=DEFAULT&search=${t}`);
      await retitle(a, `${t} A 고침`);

      bus.connection.publish(bus.subject(cacheChangedSubject('community')), payload);
      await delivered();
      expect((await detail(first, a)).title).toBe(`${t} A 고침`);
      expect((await detail(second, a)).title).toBe(`${t} A 고침`);
      expect((await list(second, `prefix=DEFAULT&search=${t}`)).content[0].title).toBe(`${t} A 고침`);
    }
  });

  it("community.comment.created forgets its board's answers on every instance; an event that cannot be read forgets everything", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    for (const app of [first, second]) {
      await detail(app, a);
      await detail(app, b);
    }
    await retitle(a, `${t} A 고침`);
    await retitle(b, `${t} B 고침`);
    const event = communityCommentCreated.build({
      boardId: a,
      boardTitle: `${t} A`,
      boardAuthorId: author.id,
      commentId: 900_002,
      commenterId: commenter.id,
      commenterNickName: '캐시댓글러',
      content: '이벤트',
      occurredAt: h.clock.now().toISOString(),
    });
    const before = announcements.length;
    bus.connection.publish(bus.subject(communityCommentCreated.subjectOf(event)), JSON.stringify(event));
    await delivered();
    for (const app of [first, second]) {
      expect((await detail(app, a)).title).toBe(`${t} A 고침`);
      expect((await detail(app, b)).title).toBe(`${t} B`);
    }
    // Each instance tells what the event changed as a write would, for a gateway in front (which hears no event).
    const told = announcements.slice(before).map((text) => JSON.parse(text) as unknown);
    expect(told).toEqual([{ keys: [boardKey(a), commenterKey(commenter.id)] }, { keys: [boardKey(a), commenterKey(commenter.id)] }]);

    const beforeUnreadable = announcements.length;
    bus.connection.publish(bus.subject(communityCommentCreated.subject), '{"boardId":"not a number"}');
    await delivered();
    for (const app of [first, second]) expect((await detail(app, b)).title).toBe(`${t} B 고침`);
    // Without keys: everything, on every instance and gateway.
    expect(announcements.slice(beforeUnreadable)).toEqual(['', '']);
  });
});

describe('what an outsider can make the cache hold (issue 34 item 4)', () => {
  it('keys on the parameters the operation reads: `?utm=<i>` and another order or spelling of its query make no new answer', async () => {
    const t = token();
    const boardId = await postBoard(h.app, author, { title: `${t} 큰 글`, code: `<p>${'가'.repeat(40_000)}</p>` });
    const [cache] = caches;
    // What earlier tests kept has expired (beforeEach).
    cache.sweep();
    const before = cache.size;
    for (let i = 0; i < 50; i++) expect((await detail(first, boardId)).title).toBe(`${t} 큰 글`);
    for (let i = 0; i < 50; i++) expect((await get<BoardDetail>(first, `/api/v1/boards/${boardId}?utm=${i}&x${i}=1`)).title).toBe(`${t} 큰 글`);
    expect(cache.size - before).toBe(1);
    // The same list asked for with its query in another order, with a default spelled out, and with noise.
    await list(first, `prefix=DEFAULT&search=${t}`);
    await list(first, `search=${t}&prefix=DEFAULT&utm=1`);
    await list(first, `search=${t}&prefix=DEFAULT&page=0`);
    expect(cache.size - before).toBe(2);
  });

  it('holds no more than its byte budget, the least recently used going first, and drops expired answers unasked', async () => {
    const t = token();
    const boards = [];
    for (let i = 0; i < 5; i++) boards.push(await postBoard(h.app, author, { title: `${t} ${i}`, code: `<p>${'나'.repeat(20_000)}</p>` }));
    // Each detail is about 60 kB (20,000 three-byte characters): a budget of 200 kB holds three.
    const cache = new ResponseCache({ now: () => h.clock.now().getTime(), maxBytes: 200_000, sweepEveryMs: 20 });
    cache.listen(bus, 'community', [commentCreatedEvents]);
    caches.push(cache);
    const app = buildApp({ connection: h.connection, logger: h.ctx.logger, publicKey: testEnv().publicKey, now: h.clock.now, responseCache: cache });
    try {
      for (const boardId of boards.slice(0, 3)) await detail(app, boardId);
      expect(cache.size).toBe(3);
      await detail(app, boards[0]);
      for (const boardId of boards.slice(3)) await detail(app, boardId);
      // Two more came in: the two not asked for again went.
      expect(cache.bytes).toBeLessThanOrEqual(200_000);
      expect(cache.size).toBeLessThanOrEqual(3);
      // The one asked for again stayed; the ones not asked for since went first.
      await retitle(boards[0], `${t} 0 고침`);
      await retitle(boards[1], `${t} 1 고침`);
      expect((await detail(app, boards[0])).title).toBe(`${t} 0`);
      expect((await detail(app, boards[1])).title).toBe(`${t} 1 고침`);
      h.clock.advance(BOARD_ANSWERS.ttlMs);
      await eventually(() => (cache.size === 0 ? true : undefined), 2_000);
      expect(cache.bytes).toBe(0);
    } finally {
      cache.stop();
    }
  });
});

describe('what a list shows of a board is a part of it (issue 42: loves no longer forget the lists)', () => {
  it("a love of A keeps every list and comment list showing A (no list shows loves) and forgets A's detail; a comment on A forgets the lists with A and keeps those without", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const b = await postBoard(h.app, author, { title: `${t} B` });
    const pages = { withA: `prefix=DEFAULT&search=${t}`, withoutA: `prefix=DEFAULT&search=${t}%20B` };
    for (const query of Object.values(pages)) await list(first, query);
    expect((await detail(first, a)).loveCount).toBe(0);
    expect(await get(first, `/api/v1/comments/${a}`)).toEqual([]);
    for (const app of [first, second]) expect(itemOf((await list(app, pages.withA)).content, a).title).toBe(`${t} A`);
    await retitle(a, `${t} A 고침`);
    await retitle(b, `${t} B 고침`);

    expect((await request(first).put(`/api/v1/loves/${a}`).set('Authorization', lover.token)).status).toBe(200);
    await delivered();

    expect(await detail(first, a)).toMatchObject({ title: `${t} A 고침`, loveCount: 1 });
    await eventually(async () => (await detail(second, a)).loveCount === 1);
    for (const app of [first, second]) expect(itemOf((await list(app, pages.withA)).content, a).title).toBe(`${t} A`);
    expect(await get(first, `/api/v1/comments/${a}`)).toEqual([]);

    await postComment(first, commenter, a, '목록을 바꾸는 댓글');
    await delivered();

    for (const app of [first, second]) expect(itemOf((await list(app, pages.withA)).content, a)).toMatchObject({ title: `${t} A 고침`, commentCount: 1 });
    expect(await get(first, `/api/v1/comments/${a}`)).toEqual([expect.objectContaining({ content: '목록을 바꾸는 댓글' })]);
    expect((await list(first, pages.withoutA)).content.map((i) => i.title)).toEqual([`${t} B`]);
  });

  it('a love moving a board from c to c+1 loves keeps a love-ordered page showing only boards with other counts, and forgets one it can change', async () => {
    const t = token();
    const p = await postBoard(h.app, author, { title: `${t} p` });
    const r = await postBoard(h.app, author, { title: `${t} r` });
    for (const member of [commenter, lover]) expect((await request(h.app).put(`/api/v1/loves/${p}`).set('Authorization', member.token)).status).toBe(200);
    const page = (n: number) => `prefix=DEFAULT&search=${t}&order=POPULAR&size=1&page=${n}`;
    const shown = async (n: number) => (await list(first, page(n))).content.map((i) => i.title);
    expect([await shown(0), await shown(1)]).toEqual([[`${t} p`], [`${t} r`]]);
    await retitle(p, `${t} p 고침`);
    await retitle(r, `${t} r 고침`);

    // r: 0 -> 1 loves. The first page shows p with 2 loves, which r does not reach: kept.
    expect((await request(first).put(`/api/v1/loves/${r}`).set('Authorization', lover.token)).status).toBe(200);
    expect([await shown(0), await shown(1)]).toEqual([[`${t} p`], [`${t} r 고침`]]);

    // r: 1 -> 2 loves, level with p and newer: it leads, and the first page (p, 2 loves) is forgotten.
    expect((await request(first).put(`/api/v1/loves/${r}`).set('Authorization', commenter.token)).status).toBe(200);
    expect([await shown(0), await shown(1)]).toEqual([[`${t} r 고침`], [`${t} p 고침`]]);
  });

  it('offers a list under the listed part of each board it shows, and a love names only the loves of its board', async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const computed = await request(first).get(`/api/v1/boards?prefix=DEFAULT&search=${t}`);
    expect(readOffer(computed.headers[CACHE_OFFER_HEADER])?.keys).toEqual([listedBoardKey(a)]);
    const loved = await request(first).put(`/api/v1/loves/${a}`).set('Authorization', lover.token);
    expect(loved.status).toBe(200);
    expect(JSON.parse(String(loved.headers[CACHE_CHANGED_HEADER]))).toEqual({
      keys: [boardLovesKey(a), `${loveOrderKey('DEFAULT')}/0`, `${loveOrderKey('DEFAULT')}/1`, loverKey(lover.id)],
    });
  });
});

describe('one change heard twice', () => {
  it("a comment's community.comment.created, arriving after its write announced it, forgets nothing more; another comment's does", async () => {
    const t = token();
    const a = await postBoard(h.app, author, { title: `${t} A` });
    const commentId = await postComment(first, commenter, a, '이벤트보다 먼저 알린 댓글');
    await delivered();
    const event = (id: number) =>
      communityCommentCreated.build({
        boardId: a,
        boardTitle: `${t} A`,
        boardAuthorId: author.id,
        commentId: id,
        commenterId: commenter.id,
        commenterNickName: '캐시댓글러',
        content: '이벤트',
        occurredAt: h.clock.now().toISOString(),
      });
    for (const app of [first, second]) expect((await detail(app, a)).commentCount).toBe(1);
    await retitle(a, `${t} A 고침`);

    const own = event(commentId);
    bus.connection.publish(bus.subject(communityCommentCreated.subjectOf(own)), JSON.stringify(own));
    await delivered();
    for (const app of [first, second]) expect((await detail(app, a)).title).toBe(`${t} A`);

    const another = event(commentId + 1_000_000);
    bus.connection.publish(bus.subject(communityCommentCreated.subjectOf(another)), JSON.stringify(another));
    await delivered();
    for (const app of [first, second]) expect((await detail(app, a)).title).toBe(`${t} A 고침`);
  });
});
