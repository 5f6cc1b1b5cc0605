import { operationsDocument, type ApiDocument } from '@binzip/shared';
import { registerPictureOperations } from '@binzip/shared/media';
import { adminBoardOperations } from './admin';
import { boardOperations } from './boards';
import { commentOperations } from './comments';
import { loveOperations } from './loves';
import { fieldLabels } from './schemas';

/** Where the pictures of board bodies are uploaded and served (the shared pictures routes, mounted by the app). */
export const PICTURES_PATH = '/api/v1/boards/images';

/** Every operation of the service, in mount order. */
export const operations = [...boardOperations, ...commentOperations, ...loveOperations, ...adminBoardOperations];

/** The community part of the API document, derived from the operations and the shared pictures routes. */
export const apiDocument = (): ApiDocument =>
  operationsDocument(
    operations,
    { title: 'binzip community', version: '1.0.0' },
    // The shared `id` segment of /comments/{id} has one title for both ids (titles go by parameter name); each
    // operation's description says which.
    { ...fieldLabels, id: `${fieldLabels.boardId} / ${fieldLabels.commentId}` },
    (registry) => registerPictureOperations(registry, { path: PICTURES_PATH, operationPrefix: 'Board', what: '게시글' }),
  );
