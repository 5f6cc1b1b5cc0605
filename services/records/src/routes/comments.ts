import { currentUser, handle, parseBody, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import { createComment, deleteComment, updateComment } from '../domain/comments';
import type { RecordsContext } from '../domain/context';
import { commentIdParams, createCommentBody, updateCommentBody } from './schemas';

/** Mounted on `/api/v1/record_comment`. */
export function commentRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/',
    requireUser,
    handle((req) => createComment(ctx, currentUser(req), parseBody(req, createCommentBody))),
  );
  router.put(
    '/:commentId',
    requireUser,
    handle((req) => updateComment(ctx, currentUser(req), { ...parseParams(req, commentIdParams), ...parseBody(req, updateCommentBody) })),
  );
  router.delete(
    '/:commentId',
    requireUser,
    handle((req) => deleteComment(ctx, currentUser(req), parseParams(req, commentIdParams))),
  );
  return router;
}
