import { createApiRegistry, generateApiDocument, registerOperation, type ApiDocument, type OperationSpec } from '@binzip/shared';
import { registerPictureOperations } from '@binzip/shared/dist/media';
import { z } from 'zod';
import {
  adminReportPageSchema,
  approvalBody,
  houseDetailSchema,
  houseListPageableSchema,
  houseListPageSchema,
  houseParams,
  houseStatsSchema,
  listingBody,
  ownDraftsQuery,
  ownListPageSchema,
  ownListQuery,
  publicListQuery,
  reportBody,
  reportDecisionBody,
  reportListQuery,
  scrapListQuery,
  waitingListQuery,
  fieldLabels,
} from './routes/schemas';

const houseId = z.number().int().meta({ description: '빈집 게시글 id' });

/** The houses part of the API document, from the schemas the routes validate with. */
export function apiDocument(): ApiDocument {
  const registry = createApiRegistry();
  const add = (spec: OperationSpec) => registerOperation(registry, spec);
  const houses = ['houses'];
  registerPictureOperations(registry, { path: '/api/v1/houses/images', operationPrefix: 'House', what: '빈집' });

  // Listings
  add({
    method: 'get',
    path: '/api/v1/houses',
    operationId: 'listHouses',
    summary: '빈집 목록 (필터, 지역어, 최신 수정순)',
    tags: houses,
    access: 'optional',
    query: publicListQuery,
    data: houseListPageSchema,
  });
  add({
    method: 'post',
    path: '/api/v1/houses',
    operationId: 'createHouse',
    summary: '빈집 게시글 작성 / 임시저장',
    description: '중개사와 관리자의 저장은 바로 공개(ONGOING), 일반 회원의 저장은 승인 대기(APPLYING).',
    tags: houses,
    access: 'user',
    body: listingBody,
    data: houseId,
    errors: ['H0000', 'U0012'],
  });
  add({
    method: 'get',
    path: '/api/v1/houses/{houseId}',
    operationId: 'getHouse',
    summary: '빈집 게시글 상세',
    tags: houses,
    access: 'optional',
    params: houseParams,
    data: houseDetailSchema,
    errors: ['C0001'],
  });
  add({
    method: 'put',
    path: '/api/v1/houses/{houseId}',
    operationId: 'updateHouse',
    summary: '빈집 게시글 수정 (작성자)',
    tags: houses,
    access: 'user',
    params: houseParams,
    body: listingBody,
    data: houseId,
    errors: ['C0001', 'C0003', 'C0004', 'H0000', 'U0012'],
  });
  add({
    method: 'delete',
    path: '/api/v1/houses/{houseId}',
    operationId: 'deleteHouse',
    summary: '빈집 게시글 삭제 (작성자 또는 관리자)',
    tags: houses,
    access: 'user',
    params: houseParams,
    errors: ['C0001', 'C0003', 'C0004', 'U0012'],
  });
  add({
    method: 'get',
    path: '/api/v1/houses/tmp-save',
    operationId: 'listHouseDrafts',
    summary: '내 임시저장 목록',
    tags: houses,
    access: 'user',
    query: ownDraftsQuery,
    data: houseListPageableSchema,
  });
  add({
    method: 'get',
    path: '/api/v1/houses/agent',
    operationId: 'listOwnHouses',
    summary: '내가 작성한 빈집 목록 (상태별 개수)',
    tags: houses,
    access: 'user',
    query: ownListQuery,
    data: ownListPageSchema,
  });
  add({
    method: 'get',
    path: '/api/v1/houses/my',
    operationId: 'listMyHouses',
    summary: '내 매물 관리: /houses/agent와 같은 목록 (원래 웹 클라이언트의 경로)',
    tags: houses,
    access: 'user',
    query: ownListQuery,
    data: ownListPageSchema,
  });
  add({
    method: 'get',
    path: '/api/v1/houses/user-scrap/{houseId}',
    operationId: 'getHouseForMember',
    summary: '빈집 게시글 상세 (로그인 회원, 스크랩 여부 포함)',
    tags: houses,
    access: 'user',
    params: houseParams,
    data: houseDetailSchema,
    errors: ['C0001'],
  });
  add({
    method: 'put',
    path: '/api/v1/houses/report/{houseId}',
    operationId: 'reportHouse',
    summary: '빈집 게시글 신고 (신고되면 작성자와 관리자만 볼 수 있음)',
    tags: houses,
    access: 'user',
    params: houseParams,
    body: reportBody,
    errors: ['C0001', 'H0001', 'H0003', 'U0012'],
  });
  add({
    method: 'put',
    path: '/api/v1/houses/status/{houseId}',
    operationId: 'completeHouseDeal',
    summary: '거래 완료 (작성자, ONGOING -> COMPLETED)',
    tags: houses,
    access: 'user',
    params: houseParams,
    data: houseId,
    errors: ['C0001', 'C0003', 'C0004', 'H0004', 'U0012'],
  });

  // Scraps
  add({
    method: 'get',
    path: '/api/v1/houses/scrap',
    operationId: 'listScrappedHouses',
    summary: '내 스크랩 목록 (최근 스크랩순)',
    tags: ['scraps'],
    access: 'user',
    query: scrapListQuery,
    data: houseListPageableSchema,
  });
  add({
    method: 'put',
    path: '/api/v1/scraps/{houseId}',
    operationId: 'scrapHouse',
    summary: '빈집 게시글 스크랩',
    tags: ['scraps'],
    access: 'user',
    params: houseParams,
    data: houseId,
    errors: ['C0001', 'H0002', 'U0012'],
  });
  add({
    method: 'delete',
    path: '/api/v1/scraps/{houseId}',
    operationId: 'unscrapHouse',
    summary: '빈집 게시글 스크랩 취소',
    tags: ['scraps'],
    access: 'user',
    params: houseParams,
    errors: ['C0001', 'U0012'],
  });

  // Approval queue (administrators)
  add({
    method: 'get',
    path: '/api/v1/houses/apply',
    operationId: 'listWaitingHouses',
    summary: '승인 대기 목록 (오래된 순)',
    tags: ['house-approval'],
    access: 'admin',
    query: waitingListQuery,
    data: houseListPageSchema,
  });
  add({
    method: 'put',
    path: '/api/v1/houses/apply/{houseId}',
    operationId: 'decideHouseApproval',
    summary: '승인(ONGOING) 또는 거절(REJECTED)',
    tags: ['house-approval'],
    access: 'admin',
    params: houseParams,
    body: approvalBody,
    data: houseId,
    errors: ['C0001', 'C0004', 'H0004'],
  });

  // Back office (backoffice.md)
  add({
    method: 'get',
    path: '/api/v1/admin/reports',
    operationId: 'listHouseReports',
    summary: '신고된 빈집 게시글 (게시글별, 최근 신고순)',
    tags: ['admin-reports'],
    access: 'admin',
    query: reportListQuery,
    data: adminReportPageSchema,
  });
  add({
    method: 'put',
    path: '/api/v1/admin/reports/{houseId}',
    operationId: 'decideHouseReport',
    summary: '신고 처리: DISMISS(다시 공개) 또는 REMOVE(삭제)',
    tags: ['admin-reports'],
    access: 'admin',
    params: houseParams,
    body: reportDecisionBody,
    data: houseId,
    errors: ['C0001', 'C0004'],
  });
  add({
    method: 'get',
    path: '/api/v1/admin/stats/houses',
    operationId: 'houseStats',
    summary: '빈집 통계 (거래 상태, 거래 유형, 지역어, 처리 대기 신고)',
    tags: ['admin-stats-houses'],
    access: 'admin',
    data: houseStatsSchema,
  });

  return generateApiDocument(registry, { title: 'binzip houses', version: '1.0.0' }, fieldLabels);
}
