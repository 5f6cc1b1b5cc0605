import { operationsOf } from '@binzip/shared';
import { createComment, deleteComment, updateComment } from '../domain/comments';
import type { RecordsContext } from '../domain/context';
import { commentIdData, commentIdParams, createCommentBody, deleteCommentQuery, updateCommentBody } from './schemas';

const operation = operationsOf<RecordsContext>();
const tags = ['record-comments'];

/** /api/v1/record_comment: comments and replies on records. */
export const commentOperations = [
  operation({
    method: 'post',
    path: '/api/v1/record_comment',
    operationId: 'createRecordComment',
    summary: '기록 댓글 또는 답글 작성',
    tags,
    access: 'user',
    body: createCommentBody,
    data: commentIdData,
    errors: ['C0001'],
    handle: (ctx, { caller, body }) => createComment(ctx, caller, body),
  }),
  operation({
    method: 'put',
    path: '/api/v1/record_comment/{commentId}',
    operationId: 'updateRecordComment',
    summary: '기록 댓글 수정 (작성자만)',
    tags,
    access: 'user',
    params: commentIdParams,
    body: updateCommentBody,
    data: commentIdData,
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params, body }) => updateComment(ctx, caller, { ...params, ...body }),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/record_comment/{commentId}',
    operationId: 'deleteRecordComment',
    summary: '기록 댓글 삭제 (작성자 또는 관리자; 내용이 `삭제된 댓글입니다.`로 바뀜)',
    description: '관리자가 남의 댓글을 지울 때 `reason`(선택, 500자 이내)은 관리자 처리 기록에 사유로 남습니다.',
    tags,
    access: 'user',
    params: commentIdParams,
    query: deleteCommentQuery,
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params, query }) => deleteComment(ctx, caller, { ...params, ...query }),
  }),
];
