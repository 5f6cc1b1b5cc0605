import { currentUser, handle, parseBody, parseParams, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import type { RecordsContext } from '../domain/context';
import { createReview, deleteReview, updateReview } from '../domain/reviews';
import { createReviewBody, reviewIdParams, updateReviewBody } from './schemas';

/** Mounted on `/api/v1/record_review`. */
export function reviewRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/',
    requireAdmin,
    handle((req) => createReview(ctx, currentUser(req), parseBody(req, createReviewBody))),
  );
  router.put(
    '/:reviewId',
    requireAdmin,
    handle((req) => updateReview(ctx, currentUser(req), { ...parseParams(req, reviewIdParams), ...parseBody(req, updateReviewBody) })),
  );
  router.delete(
    '/:reviewId',
    requireAdmin,
    handle((req) => deleteReview(ctx, currentUser(req), parseParams(req, reviewIdParams))),
  );
  return router;
}
