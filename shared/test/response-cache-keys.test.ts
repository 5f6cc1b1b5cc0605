import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { AppError, authenticate, createLogger, errorHandler, idParams, mountOperations, operationsOf, ResponseCache, type AnyOperation } from '../src';
import { bearer, testEnv } from '../../test/support';

/**
 * The response cache's keys on a bare Express app (no store: the "data" is a map the test changes behind the
 * operations' back, so only the cache's rules decide what shows). The services' own tests drive the same rules
 * through their real operations, store and NATS (services/community/test/response-cache.test.ts).
 */

const values = new Map<number, number>();
const valueOf = (id: number) => values.get(id) ?? 0;
/** What GET /items/{itemId} waits for before it reads, and what it calls once it began. */
let gate: Promise<void> = Promise.resolve();
let began: () => void = () => undefined;

const operation = operationsOf<undefined>();
/** Lifetimes as a service declares them beside its keys. */
const BOARDS = { name: 'boards', ttlMs: 1_000 };
const HOUSES = { name: 'houses', ttlMs: 1_000 };
const CATEGORIES = { name: 'categories', ttlMs: 60_000 };
const itemParams = idParams('itemId');
const itemKey = (id: number) => `item:${id}`;
/** A member's own key: what GET /mine (kept per member) shows of him is `values.get(userId)`. */
const ownKey = (userId: number) => `own:${userId}`;
const operations: AnyOperation<undefined>[] = [
  operation({
    method: 'get',
    path: '/items/{itemId}',
    operationId: 'item',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    params: itemParams,
    data: z.number(),
    cached: BOARDS,
    dependsOn: ({ params }) => [itemKey(params.itemId)],
    handle: async (_ctx, { params }) => {
      began();
      await gate;
      return valueOf(params.itemId);
    },
  }),
  operation({
    method: 'get',
    path: '/all',
    operationId: 'all',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    cached: HOUSES,
    handle: () => [...values.entries()],
  }),
  operation({
    method: 'get',
    path: '/fixed',
    operationId: 'fixed',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    cached: CATEGORIES,
    dependsOn: () => [],
    handle: () => valueOf(0),
  }),
  operation({
    method: 'post',
    path: '/items/{itemId}',
    operationId: 'change',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    params: itemParams,
    changes: ({ params }) => [itemKey(params.itemId)],
    handle: () => undefined,
  }),
  operation({
    method: 'post',
    path: '/refused/{itemId}',
    operationId: 'refused',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    params: itemParams,
    changes: ({ params }) => [itemKey(params.itemId)],
    handle: () => {
      throw new AppError('C0003');
    },
  }),
  operation({
    method: 'post',
    path: '/nothing',
    operationId: 'nothing',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    changes: () => [],
    handle: () => undefined,
  }),
  operation({
    method: 'get',
    path: '/mine',
    operationId: 'mine',
    summary: 'test',
    tags: ['test'],
    access: 'user',
    data: z.number(),
    cached: BOARDS,
    cachedPerMember: true,
    dependsOn: ({ caller }) => [ownKey(caller.userId)],
    handle: (_ctx, { caller }) => valueOf(caller.userId),
  }),
  operation({
    method: 'post',
    path: '/mine',
    operationId: 'changeMine',
    summary: 'test',
    tags: ['test'],
    access: 'user',
    changes: ({ caller }) => [ownKey(caller.userId)],
    handle: () => undefined,
  }),
  operation({ method: 'post', path: '/undeclared', operationId: 'undeclared', summary: 'test', tags: ['test'], access: 'public', handle: () => undefined }),
  operation({
    method: 'post',
    path: '/broken',
    operationId: 'broken',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    changes: () => Promise.reject(new Error('the lookup failed')),
    handle: () => undefined,
  }),
];

function appWith(cache: ResponseCache, list: AnyOperation<undefined>[] = operations) {
  const app = express();
  app.use(authenticate(testEnv().publicKey));
  app.use(cache.forgetOnWrites());
  mountOperations(app, list, undefined, { responseCache: cache });
  app.use(errorHandler(createLogger('test', 'silent')));
  return app;
}

const dataOf = async (app: express.Express, path: string) => (await request(app).get(path).expect(200)).body.data as unknown;

/** Caches /items/1, /items/2, /all and /fixed, then changes every value behind the cache's back. */
async function cachedThenChanged(app: express.Express): Promise<void> {
  values.clear();
  for (const path of ['/items/1', '/items/2', '/all', '/fixed']) await dataOf(app, path);
  for (const id of [0, 1, 2]) values.set(id, 7);
}

/** Which of the four answers show the change. */
const fresh = async (app: express.Express) => ({
  item1: (await dataOf(app, '/items/1')) === 7,
  item2: (await dataOf(app, '/items/2')) === 7,
  all: JSON.stringify(await dataOf(app, '/all')).includes('7'),
  fixed: (await dataOf(app, '/fixed')) === 7,
});

describe('keys: a write forgets only the answers that depend on what it changed', () => {
  it('a declared key forgets its dependents and the answers that declared nothing, and keeps the rest', async () => {
    const app = appWith(new ResponseCache({ now: () => 0 }));
    await cachedThenChanged(app);
    await request(app).post('/items/1').expect(200);
    expect(await fresh(app)).toEqual({ item1: true, item2: false, all: true, fixed: false });
  });

  it('a write without a declaration, or whose declaration fails, forgets every answer', async () => {
    for (const path of ['/undeclared', '/broken']) {
      const app = appWith(new ResponseCache({ now: () => 0 }));
      await cachedThenChanged(app);
      await request(app).post(path).expect(200);
      expect(await fresh(app)).toEqual({ item1: true, item2: true, all: true, fixed: true });
    }
  });

  it('a write that changed nothing cached (`[]`) and a refused write forget nothing', async () => {
    const cache = new ResponseCache({ now: () => 0 });
    const app = appWith(cache);
    await cachedThenChanged(app);
    await request(app).post('/nothing').expect(200);
    await request(app).post('/refused/1').expect(403);
    // Nor does a change of no keys (an event or an announcement that names none).
    cache.forget([]);
    expect(await fresh(app)).toEqual({ item1: false, item2: false, all: false, fixed: false });
  });

  it('keeps the index in step with the entries: expired, replaced and evicted answers leave it', async () => {
    let now = 0;
    const cache = new ResponseCache({ now: () => now, maxEntries: 2 });
    const app = appWith(cache);
    values.clear();
    await dataOf(app, '/items/1');
    await dataOf(app, '/items/2');
    await dataOf(app, '/items/3');
    expect(cache.size).toBe(2);
    now = 10_000;
    await dataOf(app, '/items/2');
    const index = (cache as unknown as { dependents: Map<string, Set<string>> }).dependents;
    expect([...index.keys()].sort()).toEqual(['item:2', 'item:3']);
    expect([...(index.get('item:2') ?? [])]).toEqual(['boards item {"params":{"itemId":2}}']);
    cache.forget(['item:2', 'item:3']);
    expect(cache.size).toBe(0);
    expect(index.size).toBe(0);
  });
});

describe('what one anonymous client can make the cache hold (issue 34 item 4)', () => {
  it('one answer per declared input: parameters the operation ignores, or the same input spelled otherwise, make no new one', async () => {
    const cache = new ResponseCache({ now: () => 0 });
    const app = appWith(cache);
    values.clear();
    for (let i = 0; i < 100; i++) await dataOf(app, `/items/1?utm=${i}&i${i}=x`);
    await dataOf(app, '/items/01');
    await dataOf(app, '/all?page=3');
    expect(cache.size).toBe(2);
    // Input that does not parse is answered by the operation (400) and never kept.
    expect((await request(app).get('/items/x')).status).toBe(400);
    expect(cache.size).toBe(2);
  });

  it('keeps its bytes within the budget, the least recently used answer going first; an answer over the budget is not kept', async () => {
    let now = 0;
    const cache = new ResponseCache({ now: () => now, maxBytes: 2_000 });
    const app = appWith(cache);
    values.clear();
    for (let id = 1; id <= 4; id++) await dataOf(app, `/items/${id}`);
    const each = cache.bytes / cache.size;
    expect(each).toBeGreaterThan(256);
    for (let id = 1; id <= 50; id++) {
      await dataOf(app, '/items/1');
      await dataOf(app, `/items/${id + 10}`);
      expect(cache.bytes).toBeLessThanOrEqual(2_000);
    }
    // /items/1, read between every other, stayed.
    values.set(1, 5);
    expect(await dataOf(app, '/items/1')).toBe(0);
    values.set(1, 'x'.repeat(3_000) as unknown as number);
    now = 10_000;
    const large = await request(app).get('/items/1');
    expect(large.status).toBe(200);
    expect(cache.bytes).toBeLessThanOrEqual(2_000);
  });

  it('an answer asked for outlives the ones nobody asked for again, and the answer just kept is never the one dropped', async () => {
    values.clear();
    const cache = new ResponseCache({ now: () => 0, maxEntries: 3 });
    const app = appWith(cache);
    for (const id of [1, 2, 3]) await dataOf(app, `/items/${id}`);
    await dataOf(app, '/items/1');
    for (const id of [4, 5]) await dataOf(app, `/items/${id}`);
    for (const id of [1, 2, 3, 4, 5]) values.set(id, 7);
    // 2 and 3 went; 1, asked for again, and the two newest stayed.
    const kept = async () => {
      const answers: Record<number, unknown> = {};
      for (const id of [1, 4, 5]) answers[id] = await dataOf(app, `/items/${id}`);
      return answers;
    };
    expect(await kept()).toEqual({ 1: 0, 4: 0, 5: 0 });
    expect(cache.size).toBe(3);
    // Every kept answer was just asked for: the next one stored stays all the same (one of the others goes).
    values.set(6, 1);
    expect(await dataOf(app, '/items/6')).toBe(1);
    values.set(6, 2);
    expect(await dataOf(app, '/items/6')).toBe(1);
    expect(cache.size).toBe(3);
  });

  it('drops expired answers without being asked for them again, on a timer that keeps no process alive', async () => {
    let now = 0;
    const cache = new ResponseCache({ now: () => now, sweepEveryMs: 10 });
    const app = appWith(cache);
    values.clear();
    for (let id = 1; id <= 5; id++) await dataOf(app, `/items/${id}`);
    expect(cache.size).toBe(5);
    now = 10_000;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ size: cache.size, bytes: cache.bytes }).toEqual({ size: 0, bytes: 0 });
    cache.stop();
  });
});

describe('an answer computed while its data changed', () => {
  /** Starts GET /items/1, lets `change` happen while it is computed, and says whether its answer was kept. */
  async function keptAfter(change: (cache: ResponseCache) => void): Promise<boolean> {
    const cache = new ResponseCache({ now: () => 0 });
    const app = appWith(cache);
    let open = () => undefined as void;
    gate = new Promise((resolve) => (open = resolve));
    const computing = new Promise<void>((resolve) => (began = resolve));
    const answer = request(app)
      .get('/items/1')
      .then((res) => res);
    await computing;
    change(cache);
    open();
    await answer;
    gate = Promise.resolve();
    began = () => undefined;
    return cache.size === 1;
  }

  it('is not stored when one of its keys changed, or everything did', async () => {
    expect(await keptAfter((cache) => cache.forget(['item:1']))).toBe(false);
    expect(await keptAfter((cache) => cache.forget())).toBe(false);
  });

  it('is stored when only other keys changed', async () => {
    expect(await keptAfter((cache) => cache.forget(['item:2', 'other']))).toBe(true);
  });

  it('is not stored when the history of changed keys was dropped meanwhile (more keys changed than it keeps)', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => `many:${i}`);
    expect(await keptAfter((cache) => cache.forget(many))).toBe(false);
  });
});

describe("a member's own answers (cachedPerMember)", () => {
  const ANN = 41;
  const BEN = 42;
  const annToken = bearer({ userId: ANN });
  const benToken = bearer({ userId: BEN });
  const mine = (app: express.Express, token: string) => request(app).get('/mine').set('Authorization', token);

  it("keeps each member's answer for him alone: another member gets his own, an anonymous caller none", async () => {
    values.clear();
    values.set(ANN, 1);
    values.set(BEN, 2);
    const app = appWith(new ResponseCache({ now: () => 0 }));
    expect((await mine(app, annToken)).body.data).toBe(1);
    values.set(ANN, 10);
    values.set(BEN, 20);
    const ann = await mine(app, annToken);
    expect(ann.body.data).toBe(1);
    expect(ann.headers['cache-control']).toBe('private, no-cache');
    expect((await mine(app, benToken)).body.data).toBe(20);
    expect((await mine(app, annToken)).body.data).toBe(1);
    expect((await request(app).get('/mine')).status).toBe(401);
  });

  it('answers his If-None-Match with 304 while it is kept, and a changed answer with 200 and a new ETag', async () => {
    values.clear();
    values.set(ANN, 1);
    const app = appWith(new ResponseCache({ now: () => 0 }));
    const first = await mine(app, annToken);
    const etag = first.headers.etag;
    expect((await mine(app, annToken).set('If-None-Match', etag)).status).toBe(304);
    values.set(ANN, 5);
    await request(app).post('/mine').set('Authorization', annToken).expect(200);
    const changed = await mine(app, annToken).set('If-None-Match', etag);
    expect(changed.status).toBe(200);
    expect(changed.body.data).toBe(5);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it("a member's write forgets his answer at once and keeps every other member's and the public ones", async () => {
    values.clear();
    const cache = new ResponseCache({ now: () => 0 });
    const app = appWith(cache);
    await mine(app, annToken);
    await mine(app, benToken);
    await dataOf(app, '/items/1');
    values.set(ANN, 3);
    values.set(BEN, 4);
    values.set(1, 5);
    await request(app).post('/mine').set('Authorization', annToken).expect(200);
    expect((await mine(app, annToken)).body.data).toBe(3);
    expect((await mine(app, benToken)).body.data).toBe(0);
    expect(await dataOf(app, '/items/1')).toBe(0);
    // A change made outside a request (an event consumer) forgets the same way.
    cache.changed([ownKey(BEN)]);
    expect((await mine(app, benToken)).body.data).toBe(4);
    // And everything forgets members' answers too.
    values.set(ANN, 6);
    cache.forget();
    expect((await mine(app, annToken)).body.data).toBe(6);
  });

  it("members' answers are bounded apart from the public ones: many members never push a public page out", async () => {
    values.clear();
    const cache = new ResponseCache({ now: () => 0, maxEntries: 1, maxMemberEntries: 2 });
    const app = appWith(cache);
    await dataOf(app, '/items/1');
    for (const userId of [101, 102, 103]) await mine(app, bearer({ userId }));
    expect(cache.size).toBe(3);
    for (const id of [1, 101, 102, 103]) values.set(id, 9);
    expect(await dataOf(app, '/items/1')).toBe(0);
    // The oldest member's answer went first.
    expect((await mine(app, bearer({ userId: 101 }))).body.data).toBe(9);
    expect((await mine(app, bearer({ userId: 103 }))).body.data).toBe(0);
  });

  it('an expired token never reaches a kept answer', async () => {
    values.clear();
    values.set(ANN, 1);
    const app = appWith(new ResponseCache({ now: () => 0 }));
    await mine(app, annToken);
    expect((await mine(app, bearer({ userId: ANN }, -60))).status).toBe(401);
  });
});

describe('declarations that cannot apply fail the mount', () => {
  it("per member without cached, on a public operation, and a members' operation cached as a public one", () => {
    const base = { method: 'get' as const, path: '/x', summary: 'test', tags: ['test'], handle: () => 1 };
    expect(() => appWith(new ResponseCache(), [operation({ ...base, operationId: 'a', access: 'user', cachedPerMember: true })])).toThrow(
      /a is cached per member without cached or without member access/,
    );
    expect(() => appWith(new ResponseCache(), [operation({ ...base, operationId: 'b', access: 'optional', cached: BOARDS, cachedPerMember: true })])).toThrow(
      /b is cached per member without cached or without member access/,
    );
    expect(() => appWith(new ResponseCache(), [operation({ ...base, operationId: 'c', access: 'user', cached: BOARDS })])).toThrow(
      /c is a members' operation cached as a public one/,
    );
  });

  it('dependsOn without cached', () => {
    const read = operation({
      method: 'get',
      path: '/x',
      operationId: 'uncachedRead',
      summary: 'test',
      tags: ['test'],
      access: 'public',
      dependsOn: () => [],
      handle: () => 1,
    });
    expect(() => appWith(new ResponseCache(), [read])).toThrow(/uncachedRead declares dependsOn without cached/);
  });

  it('changes on a read', () => {
    const read = operation({
      method: 'get',
      path: '/x',
      operationId: 'changingRead',
      summary: 'test',
      tags: ['test'],
      access: 'public',
      changes: () => [],
      handle: () => 1,
    });
    expect(() => appWith(new ResponseCache(), [read])).toThrow(/changingRead is a read that declares changes/);
  });
});
