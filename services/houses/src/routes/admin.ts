import { operationsOf } from '@binzip/shared';
import { decideReport, houseStats, listReports } from '../domain/admin-reports';
import { decideApproval, decideApprovals } from '../domain/approval';
import type { HousesContext } from '../domain/context';
import { waitingList } from '../domain/queries';
import {
  adminReportPageSchema,
  approvalBody,
  bulkApprovalBody,
  bulkOutcomesSchema,
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
    handle: (ctx, { caller, params, body }) => decideApproval(ctx, caller, { ...params, ...body }),
  }),
  operation({
    method: 'post',
    path: '/api/v1/admin/houses/apply',
    operationId: 'decideHouseApprovals',
    summary: '여러 매물을 한 번에 승인 또는 거절 (id마다 결과; 하나의 실패는 다른 매물에 영향 없음)',
    description:
      'ids 1~100개, 거절이면 reason 필수. 형식이 틀린 요청은 통째로 C0002; 그 밖에는 id마다 {id, code, message}: ' +
      'SUCCESS, 또는 그 id만의 오류 (C0001 없는 매물, H0004 이미 처리된 매물). 성공한 것마다 감사 기록이 남습니다.',
    tags: ['house-approval'],
    access: 'admin',
    body: bulkApprovalBody,
    data: bulkOutcomesSchema,
    handle: (ctx, { caller, body }) => decideApprovals(ctx, caller, body),
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
    handle: (ctx, { caller, params, body }) => decideReport(ctx, caller, { ...params, ...body }),
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
