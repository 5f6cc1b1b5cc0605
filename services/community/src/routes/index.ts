import { operationsDocument, type ApiTags, type AnyOperation, type ApiDocument } from '@binzip/shared';
import { PICTURE_TAGS, pictureOperations, type Pictures } from '@binzip/shared/media';
import type { CommunityContext } from '../domain/context';
import { adminBoardOperations } from './admin';
import { boardOperations } from './boards';
import { commentOperations } from './comments';
import { loveOperations } from './loves';
import { fieldLabels } from './schemas';

/** Where the pictures of board bodies are uploaded and served. */
export const PICTURES_PATH = '/api/v1/boards/images';

/** What the operations run with: the domain's context and the service's pictures. */
export type CommunityOperationContext = CommunityContext & { readonly pictures: Pictures };

/** Every operation of the service, in mount order. */
export const operations: AnyOperation<CommunityOperationContext>[] = [
  ...pictureOperations<CommunityOperationContext>({ path: PICTURES_PATH, operationPrefix: 'Board', what: '게시글', pictures: (ctx) => ctx.pictures }),
  ...boardOperations,
  ...commentOperations,
  ...loveOperations,
  ...adminBoardOperations,
];

/** The tags of the service's operations, each with its description in the API document. */
export const apiTags: ApiTags = {
  boards: '커뮤니티 게시판: 글 목록, 상세, 작성, 수정, 삭제, 고정',
  comments: '게시글 댓글',
  loves: '게시글 좋아요',
  'admin-boards': '관리자: 게시판 관리와 홍보 글 고정',
  ...PICTURE_TAGS,
};

/** The community part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument =>
  operationsDocument(
    operations,
    { title: 'binzip community', version: '1.0.0', tags: apiTags },
    // The shared `id` segment of /comments/{id} has one title for both ids (titles go by parameter name); each
    // operation's description says which.
    { ...fieldLabels, id: `${fieldLabels.boardId} / ${fieldLabels.commentId}` },
  );
