import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { AppError, createLogger, errorHandler, idParams, mountOperations, operationsOf, ResponseCache, type AnyOperation } from '../src';

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
const itemParams = idParams('itemId');
const itemKey = (id: number) => `item:${id}`;
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
    cached: 'boards',
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
    cached: 'houses',
    handle: () => [...values.entries()],
  }),
  operation({
    method: 'get',
    path: '/fixed',
    operationId: 'fixed',
    summary: 'test',
    tags: ['test'],
    access: 'public',
    cached: 'categories',
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
    expect([...(index.get('item:2') ?? [])]).toEqual(['boards /items/2']);
    cache.forget(['item:2', 'item:3']);
    expect(cache.size).toBe(0);
    expect(index.size).toBe(0);
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

describe('declarations that cannot apply fail the mount', () => {
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
