import { currentUser, handle, parseBody, parseParams, requireUser, RESPONSE_CACHE_TTL_MS, type ResponseCache } from '@binzip/shared';
import { Router } from 'express';
import { commentsOf, createComment, deleteComment, updateComment } from '../domain/comments';
import type { CommunityContext } from '../domain/context';
import { boardParams, commentBody, commentParams } from './schemas';

/** /api/v1/comments */
export function commentRoutes(ctx: CommunityContext, cache: ResponseCache): Router {
  const router = Router();

  router.get(
    '/:boardId',
    cache.route('boards', RESPONSE_CACHE_TTL_MS.boards),
    handle((req) => commentsOf(ctx, parseParams(req, boardParams))),
  );

  router.post(
    '/',
    requireUser,
    handle((req) => createComment(ctx, currentUser(req), parseBody(req, commentBody))),
  );

  router.put(
    '/:commentId',
    requireUser,
    handle((req) => updateComment(ctx, currentUser(req), { ...parseParams(req, commentParams), ...parseBody(req, commentBody) })),
  );

  router.delete(
    '/:commentId',
    requireUser,
    handle(async (req) => {
      await deleteComment(ctx, currentUser(req), parseParams(req, commentParams));
      return undefined;
    }),
  );

  return router;
}
