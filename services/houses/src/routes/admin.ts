import { operationsOf } from '@binzip/shared';
import { decideReport, houseStats, listReports } from '../domain/admin-reports';
import { decideApproval } from '../domain/approval';
import type { HousesContext } from '../domain/context';
import { waitingList } from '../domain/queries';
import {
  adminReportPageSchema,
  approvalBody,
  houseIdData,
  houseListPageSchema,
  houseParams,
  houseStatsSchema,
  reportDecisionBody,
  reportListQuery,
  waitingListQuery,
} from './schemas';

const operation = operationsOf<HousesContext>();

/**
 * Administrators only: the approval queue (`/api/v1/houses/apply`, before `/api/v1/houses/{houseId}`), reported
 * listings and statistics (backoffice.md).
 */
export const adminOperations = [
  operation({
    method: 'get',
    path: '/api/v1/houses/apply',
    operationId: 'listWaitingHouses',
    summary: '승인 대기 목록 (오래된 순)',
    tags: ['house-approval'],
    access: 'admin',
    query: waitingListQuery,
    data: houseListPageSchema,
    handle: (ctx, { query }) => waitingList(ctx, query),
  }),
  operation({
    method: 'put',
    path: '/api/v1/houses/apply/{houseId}',
    operationId: 'decideHouseApproval',
    summary: '승인(ONGOING) 또는 거절(REJECTED)',
    tags: ['house-approval'],
    access: 'admin',
    params: houseParams,
    body: approvalBody,
    data: houseIdData,
    errors: ['C0001', 'H0004'],
    handle: (ctx, { params, body }) => decideApproval(ctx, { ...params, ...body }),
  }),
  operation({
    method: 'get',
    path: '/api/v1/admin/reports',
    operationId: 'listHouseReports',
    summary: '신고된 빈집 게시글 (게시글별, 최근 신고순)',
    tags: ['admin-reports'],
    access: 'admin',
    query: reportListQuery,
    data: adminReportPageSchema,
    handle: (ctx, { query }) => listReports(ctx, query),
  }),
  operation({
    method: 'put',
    path: '/api/v1/admin/reports/{houseId}',
    operationId: 'decideHouseReport',
    summary: '신고 처리: DISMISS(다시 공개) 또는 REMOVE(삭제)',
    tags: ['admin-reports'],
    access: 'admin',
    params: houseParams,
    body: reportDecisionBody,
    data: houseIdData,
    errors: ['C0001'],
    handle: (ctx, { params, body }) => decideReport(ctx, { ...params, ...body }),
  }),
  operation({
    method: 'get',
    path: '/api/v1/admin/stats/houses',
    operationId: 'houseStats',
    summary: '빈집 통계 (거래 상태, 거래 유형, 지역어, 처리 대기 신고)',
    tags: ['admin-stats-houses'],
    access: 'admin',
    data: houseStatsSchema,
    handle: (ctx) => houseStats(ctx),
  }),
];
