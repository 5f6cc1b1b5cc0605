import { currentUser, handle, parseBody, parseParams, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { CATEGORIES, LIMITS } from '../domain/catalog';
import type { RecordsContext } from '../domain/context';
import { readTemplate, saveTemplate } from '../domain/templates';

const saveBody = z.strictObject({ template: z.string().max(LIMITS.template), category: z.enum(CATEGORIES) });
const categoryParams = z.object({ category: z.enum(CATEGORIES) });

export function templateRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/api/v1/record_category/template',
    requireAdmin,
    handle(async (req) => {
      await saveTemplate(ctx, currentUser(req), parseBody(req, saveBody));
      return undefined;
    }),
  );
  router.get(
    '/api/v1/record_category/template/:category',
    requireAdmin,
    handle((req) => readTemplate(ctx, parseParams(req, categoryParams).category)),
  );
  return router;
}
