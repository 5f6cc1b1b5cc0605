import { currentUser, handle, idParams, parseBody, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import { commentsOf, createComment, deleteComment, updateComment } from '../domain/comments';
import type { CommunityModels } from '../models';
import { commentBody } from './schemas';

const boardIdParams = idParams('boardId');
const commentIdParams = idParams('commentId');

/** `onCommentSaved` lets the outbox relay publish at once instead of at its next tick. */
export function commentRoutes(models: CommunityModels, onCommentSaved: () => void): Router {
  const router = Router();

  router.get(
    '/:boardId',
    handle((req) => commentsOf(models, parseParams(req, boardIdParams).boardId)),
  );

  router.post(
    '/',
    requireUser,
    handle(async (req) => {
      const commentId = await createComment(models, currentUser(req), parseBody(req, commentBody));
      onCommentSaved();
      return commentId;
    }),
  );

  router.put(
    '/:commentId',
    requireUser,
    handle((req) => {
      const { commentId } = parseParams(req, commentIdParams);
      return updateComment(models, currentUser(req), commentId, parseBody(req, commentBody));
    }),
  );

  router.delete(
    '/:commentId',
    requireUser,
    handle(async (req) => {
      const { commentId } = parseParams(req, commentIdParams);
      await deleteComment(models, currentUser(req), commentId);
      return undefined;
    }),
  );

  return router;
}
