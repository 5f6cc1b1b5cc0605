import { operationsOf } from '@binzip/shared';
import { RECORD_ANSWERS } from '../cache-keys';
import type { RecordsContext } from '../domain/context';
import {
  createRecord,
  deleteRecord,
  hotRecords,
  listRecords,
  recordDetail,
  reviewDetail,
  revieweeRecords,
  reviewerRecords,
  updateRecord,
} from '../domain/records';
import {
  createRecordBody,
  hotRecordsSchema,
  myRecordsQuery,
  recordDetailQuery,
  recordDetailSchema,
  recordIdData,
  recordIdParams,
  recordListParams,
  recordListQuery,
  recordPageSchema,
  recordReviewDetailSchema,
  updateRecordBody,
} from './schemas';

const operation = operationsOf<RecordsContext>();
const tags = ['records'];
const reviewTags = ['record-reviews'];

/**
 * /api/v1/record: records, and the review area's reads under the same prefix. The fixed paths come before
 * `/{part}/{type}` and `/{recordId}`, which would swallow them. Public reads verify a token that is sent
 * (`optional`); only the detail uses it (who may see a record in review, whose view counts).
 */
export const recordOperations = [
  operation({
    method: 'post',
    path: '/api/v1/record',
    operationId: 'createRecord',
    summary: '기록 작성 (관리자; 같은 팀의 다른 관리자가 리뷰어가 됨)',
    description: 'category는 type에 맞아야 함 (odori: culture, retro: retrospection, tech: disaster, issue, new_tech, architecture).',
    tags,
    access: 'admin',
    body: createRecordBody,
    data: recordIdData,
    handle: (ctx, { caller, body }) => createRecord(ctx, caller, body),
  }),
  operation({
    method: 'get',
    path: '/api/v1/record/hot',
    operationId: 'hotRecords',
    summary: '인기 기록 (최근 7일 조회수 상위 3개, 부족하면 이전 기록으로 채움)',
    tags,
    access: 'optional',
    data: hotRecordsSchema,
    cached: RECORD_ANSWERS,
    handle: (ctx) => hotRecords(ctx),
  }),
  operation({
    method: 'get',
    path: '/api/v1/record/reviewee',
    operationId: 'listRevieweeRecords',
    summary: '내가 쓴 기록 (기록의 리뷰 상태로 필터)',
    tags: reviewTags,
    access: 'admin',
    query: myRecordsQuery,
    data: recordPageSchema,
    handle: (ctx, { caller, query }) => revieweeRecords(ctx, caller, query),
  }),
  operation({
    method: 'get',
    path: '/api/v1/record/reviewer',
    operationId: 'listReviewerRecords',
    summary: '내가 리뷰하는 기록 (내 판정으로 필터, wait = 아직 리뷰 안 함)',
    tags: reviewTags,
    access: 'admin',
    query: myRecordsQuery,
    data: recordPageSchema,
    handle: (ctx, { caller, query }) => reviewerRecords(ctx, caller, query),
  }),
  operation({
    method: 'get',
    path: '/api/v1/record/review/{recordId}',
    operationId: 'getRecordReview',
    summary: '리뷰 화면: 기록 (type, category 없음), 리뷰와 리뷰어',
    tags: reviewTags,
    access: 'admin',
    params: recordIdParams,
    data: recordReviewDetailSchema,
    errors: ['C0001'],
    handle: (ctx, { caller, params }) => reviewDetail(ctx, caller, params),
  }),
  operation({
    method: 'get',
    path: '/api/v1/record/{part}/{type}',
    operationId: 'listRecords',
    summary: '기록 목록 (승인된 기록, 최신순, all은 필터 없음)',
    tags,
    access: 'optional',
    params: recordListParams,
    query: recordListQuery,
    data: recordPageSchema,
    cached: RECORD_ANSWERS,
    handle: (ctx, { params, query }) => listRecords(ctx, { ...params, ...query }),
  }),
  // Not cached: every read counts a view (per viewer) for the hot list.
  operation({
    method: 'get',
    path: '/api/v1/record/{recordId}',
    operationId: 'getRecord',
    summary: '기록 상세와 댓글 페이지 (조회수는 보는 사람마다 24시간에 한 번)',
    description: '승인 전 기록은 관리자에게만 보임 (그 밖에는 C0001).',
    tags,
    access: 'optional',
    params: recordIdParams,
    query: recordDetailQuery,
    data: recordDetailSchema,
    errors: ['C0001'],
    handle: (ctx, { caller, params, query, req }) => recordDetail(ctx, caller, { ...params, ...query, clientAddress: req.ip }),
  }),
  operation({
    method: 'put',
    path: '/api/v1/record/{recordId}',
    operationId: 'updateRecord',
    summary: '기록 수정 (작성자만)',
    tags,
    access: 'admin',
    params: recordIdParams,
    body: updateRecordBody,
    data: recordIdData,
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params, body }) => updateRecord(ctx, caller, { ...params, ...body }),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/record/{recordId}',
    operationId: 'deleteRecord',
    summary: '기록 삭제 (작성자만, 소프트 삭제)',
    tags,
    access: 'admin',
    params: recordIdParams,
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params }) => deleteRecord(ctx, caller, params),
  }),
];
