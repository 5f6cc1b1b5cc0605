import type { Express } from 'express';
import request from 'supertest';
import type { TestPerson } from '../../../test/support/service';

/** Community's own payload builders; harness, people and `expectError` come from test/support. */

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
export async function postBoard(app: Express, author: Pick<TestPerson, 'token'>, over: BoardPayload = {}): Promise<number> {
  const res = await request(app).post('/api/v1/boards').set('Authorization', author.token).send(boardPayload(over));
  if (res.status !== 200) throw new Error(`board create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}

export async function postComment(app: Express, commenter: Pick<TestPerson, 'token'>, boardId: number, content = '댓글'): Promise<number> {
  const res = await request(app).post('/api/v1/comments').set('Authorization', commenter.token).send({ boardId, content });
  if (res.status !== 200) throw new Error(`comment create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as number;
}
