import { currentUser, handle, idParams, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import { love, loves, unlove } from '../domain/loves';
import type { CommunityModels } from '../models';

const boardIdParams = idParams('boardId');

export function loveRoutes(models: CommunityModels): Router {
  const router = Router();
  router.put(
    '/:boardId',
    requireUser,
    handle((req) => love(models, currentUser(req), parseParams(req, boardIdParams).boardId)),
  );

  router.delete(
    '/:boardId',
    requireUser,
    handle(async (req) => {
      await unlove(models, currentUser(req), parseParams(req, boardIdParams).boardId);
      return undefined;
    }),
  );

  router.get(
    '/:boardId',
    requireUser,
    handle((req) => loves(models, currentUser(req), parseParams(req, boardIdParams).boardId)),
  );

  return router;
}
