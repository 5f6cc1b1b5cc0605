import { currentUser, handle, parseBody, parseParams, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import type { CommunityContext } from '../domain/context';
import { setPinned } from '../domain/pinning';
import { boardParams, pinBody } from './schemas';

/** /api/v1/admin/boards: administrators only. */
export function adminBoardRoutes(ctx: CommunityContext): Router {
  const router = Router();
  router.use(requireAdmin);
  router.put(
    '/:boardId/fixed',
    handle((req) => setPinned(ctx, currentUser(req), { ...parseParams(req, boardParams), ...parseBody(req, pinBody) })),
  );
  return router;
}
