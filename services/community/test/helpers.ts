import { applyUserSnapshot, createLogger } from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { bearer, connectTestDb, dropTestDb, isolatedNames, testEnv, userSnapshot } from '../../../test/support';
import { buildApp, type AppDeps } from '../src/app';
import { prepareStore, type CommunityModels } from '../src/models';

export interface TestContext {
  app: Express;
  connection: Connection;
  models: CommunityModels;
  names: { db: string; natsPrefix: string };
  close(): Promise<void>;
}

export async function setUp(label: string, extra: Partial<AppDeps> = {}): Promise<TestContext> {
  const names = isolatedNames(label);
  const connection = await connectTestDb(names.db);
  const models = await prepareStore(connection);
  const app = buildApp({ connection, logger: createLogger('test', 'silent'), publicKey: testEnv().publicKey, ...extra });
  return {
    app,
    connection,
    models,
    names,
    close: () => dropTestDb(connection),
  };
}

export async function addUser(ctx: TestContext, id: number, nickName: string, version = 1): Promise<void> {
  await applyUserSnapshot(ctx.models.User, userSnapshot(id, nickName, { version }));
}

export const asUser = (userId: number): string => bearer({ userId });
export const asAdmin = (userId: number): string => bearer({ userId, authority: 'ADMIN', userType: 'WEB' });

export const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/;

export interface BoardPayload {
  title?: unknown;
  code?: unknown;
  category?: unknown;
  imageUrls?: unknown;
  prefixCategory?: unknown;
  fixed?: unknown;
  [extra: string]: unknown;
}

export function boardPayload(over: BoardPayload = {}): BoardPayload {
  return { title: '제목', code: '<p>본문 내용</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false, ...over };
}

/** Creates a board through the API and returns its id. */
export async function postBoard(ctx: TestContext, userId: number, over: BoardPayload = {}, auth = asUser(userId)): Promise<number> {
  const res = await request(ctx.app).post('/api/v1/boards').set('Authorization', auth).send(boardPayload(over));
  if (res.status !== 200) throw new Error(`board create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

export async function postComment(ctx: TestContext, userId: number, boardId: number, content = '댓글'): Promise<number> {
  const res = await request(ctx.app).post('/api/v1/comments').set('Authorization', asUser(userId)).send({ boardId, content });
  if (res.status !== 200) throw new Error(`comment create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

export function expectError(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code, hasData: 'data' in res.body }).toEqual({ status, code, hasData: false });
  expect(typeof res.body.message).toBe('string');
}
