import { idString, operationsOf } from '@binzip/shared';
import { z } from 'zod';
import { commentsOf, createComment, deleteComment, updateComment } from '../domain/comments';
import type { CommunityContext } from '../domain/context';
import { BOARD_ANSWERS, boardCommentsKey, commentCreatedChange, commentDeletionKeys, commentKeys } from '../cache-keys';
import { commentBody, commentIdData, commentItemSchema, fieldLabels } from './schemas';

const operation = operationsOf<CommunityContext>();
const tags = ['comments'];

/**
 * The contract's GET /comments/{boardId} and PUT/DELETE /comments/{commentId} are one path template to OpenAPI
 * (names of path parameters do not tell paths apart), so the path names the segment `id` and each operation says
 * whose id it is: in its document (the description) and in its C0002 messages (the label). The wire is unchanged.
 */
const commentsPath = '/api/v1/comments/{id}';
const idOf = (name: 'boardId' | 'commentId') => ({
  params: z.object({ id: idString.meta({ description: `${fieldLabels[name]} (${name})` }) }),
  labels: { id: fieldLabels[name] },
});

/** /api/v1/comments */
export const commentOperations = [
  operation({
    method: 'get',
    path: commentsPath,
    operationId: 'listBoardComments',
    summary: '게시글의 댓글 (오래된 순)',
    tags,
    access: 'optional',
    ...idOf('boardId'),
    data: z.array(commentItemSchema),
    errors: ['C0001'],
    cached: BOARD_ANSWERS,
    dependsOn: ({ params }) => [boardCommentsKey(params.id)],
    handle: (ctx, { params }) => commentsOf(ctx, { boardId: params.id }),
  }),
  operation({
    method: 'post',
    path: '/api/v1/comments',
    operationId: 'createBoardComment',
    summary: '댓글 작성',
    tags,
    access: 'user',
    body: commentBody,
    data: commentIdData,
    errors: ['C0001'],
    changes: ({ caller, body }) => commentKeys(body.boardId, caller.userId),
    // Its event announces the same change again (`commentCreatedEvents`).
    changeId: (_call, commentId) => commentCreatedChange(commentId),
    handle: (ctx, { caller, body }) => createComment(ctx, caller, body),
  }),
  operation({
    method: 'put',
    path: commentsPath,
    operationId: 'updateBoardComment',
    summary: '댓글 수정 (작성자만)',
    tags,
    access: 'user',
    ...idOf('commentId'),
    body: commentBody,
    data: commentIdData,
    errors: ['C0001', 'C0003'],
    // A success means the comment is on the board the body names, and the caller wrote it.
    changes: ({ caller, body }) => commentKeys(body.boardId, caller.userId),
    handle: (ctx, { caller, params, body }) => updateComment(ctx, caller, { ...body, commentId: params.id }),
  }),
  operation({
    method: 'delete',
    path: commentsPath,
    operationId: 'deleteBoardComment',
    summary: '댓글 삭제 (작성자 또는 관리자)',
    tags,
    access: 'user',
    ...idOf('commentId'),
    errors: ['C0001', 'C0003'],
    changes: ({ params }, _data, ctx) => commentDeletionKeys(ctx, params.id),
    handle: (ctx, { caller, params }) => deleteComment(ctx, caller, { commentId: params.id }),
  }),
];
