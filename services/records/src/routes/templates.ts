import { currentUser, handle, parseBody, parseParams, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import type { RecordsContext } from '../domain/context';
import { readTemplate, saveTemplate } from '../domain/templates';
import { saveTemplateBody, templateParams } from './schemas';

/** Mounted on `/api/v1/record_category`. */
export function templateRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/template',
    requireAdmin,
    handle(async (req) => {
      await saveTemplate(ctx, currentUser(req), parseBody(req, saveTemplateBody));
      return undefined;
    }),
  );
  router.get(
    '/template/:category',
    requireAdmin,
    handle((req) => readTemplate(ctx, parseParams(req, templateParams))),
  );
  return router;
}
