import { operationsOf } from '@binzip/shared';
import type { Response } from 'express';
import { z } from 'zod';
import type { CommunityContext } from '../domain/context';
import { love, loves, unlove, type BoardTypeSeen } from '../domain/loves';
import { loveKeys } from '../cache-keys';
import { boardIdData, boardParams } from './schemas';

const operation = operationsOf<CommunityContext>();

/** The loved board's type and love counts, as the write read them, for its changed keys (one lookup less per love). */
const boardTypes = new WeakMap<Response, Parameters<BoardTypeSeen>[0]>();
const seeType = (res: Response, seen: Parameters<BoardTypeSeen>[0]) => boardTypes.set(res, seen);
const typeSeen = (res: Response) => boardTypes.get(res);
const tags = ['loves'];

/** /api/v1/loves: the signed-in member's love of one board. */
export const loveOperations = [
  operation({
    method: 'put',
    path: '/api/v1/loves/{boardId}',
    operationId: 'loveBoard',
    summary: '좋아요',
    tags,
    access: 'user',
    params: boardParams,
    data: boardIdData,
    errors: ['C0001', 'P0000'],
    changes: ({ caller, params, res }, _data, ctx) => loveKeys(ctx, params.boardId, caller.userId, typeSeen(res)),
    handle: (ctx, { caller, params, res }) => love(ctx, caller, params, (seen) => seeType(res, seen)),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/loves/{boardId}',
    operationId: 'unloveBoard',
    summary: '좋아요 취소',
    tags,
    access: 'user',
    params: boardParams,
    errors: ['C0001'],
    changes: ({ caller, params, res }, _data, ctx) => loveKeys(ctx, params.boardId, caller.userId, typeSeen(res)),
    handle: (ctx, { caller, params, res }) => unlove(ctx, caller, params, (seen) => seeType(res, seen)),
  }),
  operation({
    method: 'get',
    path: '/api/v1/loves/{boardId}',
    operationId: 'getBoardLove',
    summary: '내가 좋아요했는지',
    tags,
    access: 'user',
    params: boardParams,
    data: z.boolean(),
    errors: ['C0001'],
    handle: (ctx, { caller, params }) => loves(ctx, caller, params),
  }),
];
