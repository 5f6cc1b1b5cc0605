import { handle, idParams, parseBody, parseParams, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { setPinned } from '../domain/pinning';
import type { CommunityModels } from '../models';

const pinBody = z.strictObject({ fixed: z.boolean() });

/** /api/v1/admin/boards: administrators only. */
export function adminRoutes(models: CommunityModels): Router {
  const router = Router();
  router.use(requireAdmin);
  router.put(
    '/boards/:boardId/fixed',
    handle((req) => setPinned(models, parseParams(req, idParams('boardId')).boardId, parseBody(req, pinBody).fixed)),
  );
  return router;
}
