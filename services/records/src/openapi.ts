import { createApiRegistry, generateApiDocument, registerOperation, type ApiDocument } from '@binzip/shared';
import { z } from 'zod';
import {
  categoryTemplateSchema,
  commentIdParams,
  createCommentBody,
  createRecordBody,
  createReviewBody,
  hotRecordsSchema,
  myRecordsQuery,
  recordDetailQuery,
  recordDetailSchema,
  recordIdParams,
  recordListParams,
  recordListQuery,
  recordPageSchema,
  recordReviewDetailSchema,
  reviewIdParams,
  saveTemplateBody,
  templateParams,
  updateCommentBody,
  updateRecordBody,
  updateReviewBody,
  fieldLabels,
} from './routes/schemas';

const recordId = z.number().int().meta({ description: 'record_id' });
const reviewId = z.number().int().meta({ description: '리뷰 id' });
const commentId = z.number().int().meta({ description: '댓글 id' });

/**
 * The records part of the API document, from the schemas the routes validate with. Every write can be refused
 * with U0012 (a suspended member; the guard runs before the admin check, so admin-only writes answer it too).
 * Public reads verify a token that is sent (`optional`); only the detail uses it (visibility and hits).
 */
export function apiDocument(): ApiDocument {
  const registry = createApiRegistry();
  const records = ['records'];
  const reviews = ['record-reviews'];
  const comments = ['record-comments'];
  const templates = ['record-templates'];

  // Records
  registerOperation(registry, {
    method: 'post',
    path: '/api/v1/record',
    operationId: 'createRecord',
    summary: '기록 작성 (관리자; 같은 팀의 다른 관리자가 리뷰어가 됨)',
    description: 'category는 type에 맞아야 함 (odori: culture, retro: retrospection, tech: disaster, issue, new_tech, architecture).',
    tags: records,
    access: 'admin',
    body: createRecordBody,
    data: recordId,
    errors: ['U0012'],
  });
  registerOperation(registry, {
    method: 'put',
    path: '/api/v1/record/{recordId}',
    operationId: 'updateRecord',
    summary: '기록 수정 (작성자만)',
    tags: records,
    access: 'admin',
    params: recordIdParams,
    body: updateRecordBody,
    data: recordId,
    errors: ['C0001', 'C0003', 'U0012'],
  });
  registerOperation(registry, {
    method: 'delete',
    path: '/api/v1/record/{recordId}',
    operationId: 'deleteRecord',
    summary: '기록 삭제 (작성자만, 소프트 삭제)',
    tags: records,
    access: 'admin',
    params: recordIdParams,
    errors: ['C0001', 'C0003', 'U0012'],
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record/hot',
    operationId: 'hotRecords',
    summary: '인기 기록 (최근 7일 조회수 상위 3개, 부족하면 이전 기록으로 채움)',
    tags: records,
    access: 'optional',
    data: hotRecordsSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record/{part}/{type}',
    operationId: 'listRecords',
    summary: '기록 목록 (승인된 기록, 최신순, all은 필터 없음)',
    tags: records,
    access: 'optional',
    params: recordListParams,
    query: recordListQuery,
    data: recordPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record/{recordId}',
    operationId: 'getRecord',
    summary: '기록 상세와 댓글 페이지 (조회수는 보는 사람마다 24시간에 한 번)',
    description: '승인 전 기록은 관리자에게만 보임 (그 밖에는 C0001).',
    tags: records,
    access: 'optional',
    params: recordIdParams,
    query: recordDetailQuery,
    data: recordDetailSchema,
    errors: ['C0001'],
  });

  // Reviews
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record/reviewee',
    operationId: 'listRevieweeRecords',
    summary: '내가 쓴 기록 (기록의 리뷰 상태로 필터)',
    tags: reviews,
    access: 'admin',
    query: myRecordsQuery,
    data: recordPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record/reviewer',
    operationId: 'listReviewerRecords',
    summary: '내가 리뷰하는 기록 (내 판정으로 필터, wait = 아직 리뷰 안 함)',
    tags: reviews,
    access: 'admin',
    query: myRecordsQuery,
    data: recordPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record/review/{recordId}',
    operationId: 'getRecordReview',
    summary: '리뷰 화면: 기록 (type, category 없음), 리뷰와 리뷰어',
    tags: reviews,
    access: 'admin',
    params: recordIdParams,
    data: recordReviewDetailSchema,
    errors: ['C0001'],
  });
  const reviewWriteErrors = ['C0001', 'C0003', 'C0004', 'R0000', 'U0012'] as const;
  registerOperation(registry, {
    method: 'post',
    path: '/api/v1/record_review',
    operationId: 'createRecordReview',
    summary: '리뷰 작성 (리뷰어는 approve/reject, 작성자는 mine)',
    tags: reviews,
    access: 'admin',
    body: createReviewBody,
    data: reviewId,
    errors: reviewWriteErrors,
  });
  registerOperation(registry, {
    method: 'put',
    path: '/api/v1/record_review/{reviewId}',
    operationId: 'updateRecordReview',
    summary: '리뷰 수정 (리뷰 작성자만)',
    tags: reviews,
    access: 'admin',
    params: reviewIdParams,
    body: updateReviewBody,
    data: reviewId,
    errors: reviewWriteErrors,
  });
  registerOperation(registry, {
    method: 'delete',
    path: '/api/v1/record_review/{reviewId}',
    operationId: 'deleteRecordReview',
    summary: '리뷰 삭제 (리뷰 작성자만)',
    tags: reviews,
    access: 'admin',
    params: reviewIdParams,
    errors: reviewWriteErrors,
  });

  // Comments
  registerOperation(registry, {
    method: 'post',
    path: '/api/v1/record_comment',
    operationId: 'createRecordComment',
    summary: '기록 댓글 또는 답글 작성',
    tags: comments,
    access: 'user',
    body: createCommentBody,
    data: commentId,
    errors: ['C0001', 'U0012'],
  });
  registerOperation(registry, {
    method: 'put',
    path: '/api/v1/record_comment/{commentId}',
    operationId: 'updateRecordComment',
    summary: '기록 댓글 수정 (작성자만)',
    tags: comments,
    access: 'user',
    params: commentIdParams,
    body: updateCommentBody,
    data: commentId,
    errors: ['C0001', 'C0003', 'U0012'],
  });
  registerOperation(registry, {
    method: 'delete',
    path: '/api/v1/record_comment/{commentId}',
    operationId: 'deleteRecordComment',
    summary: '기록 댓글 삭제 (작성자 또는 관리자; 내용이 `삭제된 댓글입니다.`로 바뀜)',
    tags: comments,
    access: 'user',
    params: commentIdParams,
    errors: ['C0001', 'C0003', 'U0012'],
  });

  // Templates
  registerOperation(registry, {
    method: 'post',
    path: '/api/v1/record_category/template',
    operationId: 'saveRecordTemplate',
    summary: '카테고리 템플릿 저장 (카테고리마다 하나, 덮어씀)',
    tags: templates,
    access: 'admin',
    body: saveTemplateBody,
    errors: ['U0012'],
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/record_category/template/{category}',
    operationId: 'getRecordTemplate',
    summary: '카테고리 템플릿 (없으면 빈 문자열)',
    tags: templates,
    access: 'admin',
    params: templateParams,
    data: categoryTemplateSchema,
  });

  return generateApiDocument(registry, { title: 'binzip records', version: '1.0.0' }, fieldLabels);
}
