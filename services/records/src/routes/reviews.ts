import { operationsOf } from '@binzip/shared';
import type { RecordsContext } from '../domain/context';
import { createReview, deleteReview, updateReview } from '../domain/reviews';
import { createReviewBody, reviewIdData, reviewIdParams, updateReviewBody } from './schemas';

const operation = operationsOf<RecordsContext>();
const tags = ['record-reviews'];
// C0004: a review changes the record's counters in a compare-and-set loop, which can give up.
const errors = ['C0001', 'C0003', 'C0004', 'R0000'] as const;

/** /api/v1/record_review: administrators review their team's records (the reads are under /api/v1/record). */
export const reviewOperations = [
  operation({
    method: 'post',
    path: '/api/v1/record_review',
    operationId: 'createRecordReview',
    summary: '리뷰 작성 (리뷰어는 approve/reject, 작성자는 mine)',
    tags,
    access: 'admin',
    body: createReviewBody,
    data: reviewIdData,
    errors,
    handle: (ctx, { caller, body }) => createReview(ctx, caller, body),
  }),
  operation({
    method: 'put',
    path: '/api/v1/record_review/{reviewId}',
    operationId: 'updateRecordReview',
    summary: '리뷰 수정 (리뷰 작성자만)',
    tags,
    access: 'admin',
    params: reviewIdParams,
    body: updateReviewBody,
    data: reviewIdData,
    errors,
    handle: (ctx, { caller, params, body }) => updateReview(ctx, caller, { ...params, ...body }),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/record_review/{reviewId}',
    operationId: 'deleteRecordReview',
    summary: '리뷰 삭제 (리뷰 작성자만)',
    tags,
    access: 'admin',
    params: reviewIdParams,
    errors,
    handle: (ctx, { caller, params }) => deleteReview(ctx, caller, params),
  }),
];
