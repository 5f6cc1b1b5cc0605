import { operationsOf } from '@binzip/shared';
import type { CommunityContext } from '../domain/context';
import { setPinned } from '../domain/pinning';
import { boardIdData, boardParams, pinBody } from './schemas';

const operation = operationsOf<CommunityContext>();

/** /api/v1/admin/boards: administrators only. */
export const adminBoardOperations = [
  operation({
    method: 'put',
    path: '/api/v1/admin/boards/{boardId}/fixed',
    operationId: 'adminPinBoard',
    summary: '홍보 게시글 고정/해제 (최대 10개)',
    tags: ['admin-boards'],
    access: 'admin',
    params: boardParams,
    body: pinBody,
    data: boardIdData,
    errors: ['C0001', 'B0001'],
    handle: (ctx, { caller, params, body }) => setPinned(ctx, caller, { ...params, ...body }),
  }),
];
