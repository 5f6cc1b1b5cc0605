import { createApiRegistry, generateApiDocument, idString, registerOperation, type ApiDocument } from '@binzip/shared';
import { registerPictureOperations } from '@binzip/shared/dist/media';
import { z } from 'zod';
import {
  boardBody,
  boardCategorySchema,
  boardDetailSchema,
  boardIdData,
  boardItemSchema,
  boardPageSchema,
  boardParams,
  categoryQuery,
  commentBody,
  commentIdData,
  commentItemSchema,
  listQuery,
  ownBoardPageSchema,
  ownCommentPageSchema,
  ownListQuery,
  pinBody,
  previewQuery,
  fieldLabels,
} from './routes/schemas';

/**
 * The community part of the API document, from the schemas the routes validate with. Public reads are
 * `optional`: a token that is sent is still checked. Every member write can meet the suspension guard (U0012).
 */
export function apiDocument(): ApiDocument {
  const registry = createApiRegistry();

  const boards = ['boards'];
  registerPictureOperations(registry, { path: '/api/v1/boards/images', operationPrefix: 'Board', what: '게시글' });
  registerOperation(registry, {
    method: 'post',
    path: '/api/v1/boards',
    operationId: 'createBoard',
    summary: '게시글 작성',
    description:
      '분류는 게시판 종류에 맞아야 합니다 (EMPTY는 항상 허용). `fixed`는 관리자의 홍보 글에만 적용되며, 이미 10개가 고정되어 있으면 B0001로 거절됩니다.',
    tags: boards,
    access: 'user',
    body: boardBody,
    data: boardIdData,
    errors: ['B0001', 'U0012'],
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards/preview',
    operationId: 'previewBoards',
    summary: '게시글 미리보기 (고정 글, 좋아요 순)',
    tags: boards,
    access: 'optional',
    query: previewQuery,
    data: z.array(boardItemSchema),
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards',
    operationId: 'listBoards',
    summary: '게시글 목록 (분류, 검색, 정렬, 페이지)',
    tags: boards,
    access: 'optional',
    query: listQuery,
    data: boardPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards/category',
    operationId: 'listBoardCategories',
    summary: '게시판 종류의 분류 목록',
    tags: boards,
    access: 'optional',
    query: categoryQuery,
    data: z.array(boardCategorySchema),
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards/my',
    operationId: 'listMyBoards',
    summary: '내가 쓴 게시글',
    tags: boards,
    access: 'user',
    query: ownListQuery,
    data: ownBoardPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards/my/comment',
    operationId: 'listMyComments',
    summary: '내가 쓴 댓글',
    tags: boards,
    access: 'user',
    query: ownListQuery,
    data: ownCommentPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards/my/love',
    operationId: 'listMyLovedBoards',
    summary: '내가 좋아요한 게시글',
    tags: boards,
    access: 'user',
    query: ownListQuery,
    data: ownBoardPageSchema,
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/boards/{boardId}',
    operationId: 'getBoard',
    summary: '게시글 상세 (댓글 포함)',
    tags: boards,
    access: 'optional',
    params: boardParams,
    data: boardDetailSchema,
    errors: ['C0001'],
  });
  registerOperation(registry, {
    method: 'put',
    path: '/api/v1/boards/{boardId}',
    operationId: 'updateBoard',
    summary: '게시글 수정 (작성자만)',
    description: '`fixed`는 작성 때와 같이 관리자의 홍보 글에만 적용되며 고정 개수 제한(10개)을 따릅니다.',
    tags: boards,
    access: 'user',
    params: boardParams,
    body: boardBody,
    data: boardIdData,
    errors: ['B0001', 'C0001', 'C0003', 'U0012'],
  });
  registerOperation(registry, {
    method: 'delete',
    path: '/api/v1/boards/{boardId}',
    operationId: 'deleteBoard',
    summary: '게시글 삭제 (작성자 또는 관리자)',
    tags: boards,
    access: 'user',
    params: boardParams,
    errors: ['C0001', 'C0003', 'U0012'],
  });

  const comments = ['comments'];
  // The contract's GET /comments/{boardId} and PUT/DELETE /comments/{commentId} are one path template to OpenAPI
  // (names of path parameters do not tell paths apart), so the document names the segment `id` and says per
  // operation whose id it is. The wire is unchanged.
  const commentsPath = '/api/v1/comments/{id}';
  const commentsPathParams = (label: 'boardId' | 'commentId') => z.object({ id: idString.meta({ description: `${fieldLabels[label]} (${label})` }) });
  registerOperation(registry, {
    method: 'get',
    path: commentsPath,
    operationId: 'listBoardComments',
    summary: '게시글의 댓글 (오래된 순)',
    tags: comments,
    access: 'optional',
    params: commentsPathParams('boardId'),
    data: z.array(commentItemSchema),
    errors: ['C0001'],
  });
  registerOperation(registry, {
    method: 'post',
    path: '/api/v1/comments',
    operationId: 'createBoardComment',
    summary: '댓글 작성',
    tags: comments,
    access: 'user',
    body: commentBody,
    data: commentIdData,
    errors: ['C0001', 'U0012'],
  });
  registerOperation(registry, {
    method: 'put',
    path: commentsPath,
    operationId: 'updateBoardComment',
    summary: '댓글 수정 (작성자만)',
    tags: comments,
    access: 'user',
    params: commentsPathParams('commentId'),
    body: commentBody,
    data: commentIdData,
    errors: ['C0001', 'C0003', 'U0012'],
  });
  registerOperation(registry, {
    method: 'delete',
    path: commentsPath,
    operationId: 'deleteBoardComment',
    summary: '댓글 삭제 (작성자 또는 관리자)',
    tags: comments,
    access: 'user',
    params: commentsPathParams('commentId'),
    errors: ['C0001', 'C0003', 'U0012'],
  });

  const loves = ['loves'];
  registerOperation(registry, {
    method: 'put',
    path: '/api/v1/loves/{boardId}',
    operationId: 'loveBoard',
    summary: '좋아요',
    tags: loves,
    access: 'user',
    params: boardParams,
    data: boardIdData,
    errors: ['C0001', 'P0000', 'U0012'],
  });
  registerOperation(registry, {
    method: 'delete',
    path: '/api/v1/loves/{boardId}',
    operationId: 'unloveBoard',
    summary: '좋아요 취소',
    tags: loves,
    access: 'user',
    params: boardParams,
    errors: ['C0001', 'U0012'],
  });
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/loves/{boardId}',
    operationId: 'getBoardLove',
    summary: '내가 좋아요했는지',
    tags: loves,
    access: 'user',
    params: boardParams,
    data: z.boolean(),
    errors: ['C0001'],
  });

  registerOperation(registry, {
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
  });

  // The shared `id` segment's title names both ids (titles go by parameter name); each operation's description says which.
  return generateApiDocument(
    registry,
    { title: 'binzip community', version: '1.0.0' },
    { ...fieldLabels, id: `${fieldLabels.boardId} / ${fieldLabels.commentId}` },
  );
}
