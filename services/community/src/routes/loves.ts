import { currentUser, handle, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { CommunityContext } from '../domain/context';
import { love, loves, unlove } from '../domain/loves';
import { boardParams } from './schemas';

/** /api/v1/loves */
export function loveRoutes(ctx: CommunityContext): Router {
  const router = Router();

  router.put(
    '/:boardId',
    requireUser,
    handle((req) => love(ctx, currentUser(req), parseParams(req, boardParams))),
  );

  router.delete(
    '/:boardId',
    requireUser,
    handle(async (req) => {
      await unlove(ctx, currentUser(req), parseParams(req, boardParams));
      return undefined;
    }),
  );

  router.get(
    '/:boardId',
    requireUser,
    handle((req) => loves(ctx, currentUser(req), parseParams(req, boardParams))),
  );

  return router;
}
