import { operationsOf } from '@binzip/shared';
import type { CommunityContext } from '../domain/context';
import { setPinned } from '../domain/pinning';
import { decideBoardReport, listBoardReports } from '../domain/reports';
import { adminBoardReportPageSchema, boardIdData, boardParams, boardReportDecisionBody, boardReportListQuery, pinBody } from './schemas';

const operation = operationsOf<CommunityContext>();

/** /api/v1/admin/boards: administrators only. */
export const adminBoardOperations = [
  operation({
    method: 'get',
    path: '/api/v1/admin/boards/reports',
    operationId: 'listBoardReports',
    summary: '신고된 게시글 (게시글별, 최근 신고순)',
    tags: ['admin-boards'],
    access: 'admin',
    query: boardReportListQuery,
    data: adminBoardReportPageSchema,
    handle: (ctx, { query }) => listBoardReports(ctx, query),
  }),
  operation({
    method: 'put',
    path: '/api/v1/admin/boards/reports/{boardId}',
    operationId: 'decideBoardReport',
    summary: '게시글 신고 처리: DISMISS(기각, 게시글 유지) 또는 REMOVE(게시글 삭제)',
    tags: ['admin-boards'],
    access: 'admin',
    params: boardParams,
    body: boardReportDecisionBody,
    data: boardIdData,
    errors: ['C0001'],
    handle: (ctx, { caller, params, body }) => decideBoardReport(ctx, caller, { ...params, ...body }),
  }),
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
