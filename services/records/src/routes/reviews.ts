import { currentUser, handle, idParams, parseBody, parseParams, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { LIMITS, REVIEW_STATUSES } from '../domain/catalog';
import type { RecordsContext } from '../domain/context';
import { createReview, deleteReview, updateReview } from '../domain/reviews';
import { bodyId, nonBlankText } from './schemas';

const createBody = z.strictObject({ record_id: bodyId, content: nonBlankText(LIMITS.reviewContent), status: z.enum(REVIEW_STATUSES) });
const updateBody = z.strictObject({ content: nonBlankText(LIMITS.reviewContent), status: z.enum(REVIEW_STATUSES) });
const reviewIdParams = idParams('reviewId');

export function reviewRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/api/v1/record_review',
    requireAdmin,
    handle((req) => createReview(ctx, currentUser(req), parseBody(req, createBody))),
  );
  router.put(
    '/api/v1/record_review/:reviewId',
    requireAdmin,
    handle((req) => updateReview(ctx, currentUser(req), parseParams(req, reviewIdParams).reviewId, parseBody(req, updateBody))),
  );
  router.delete(
    '/api/v1/record_review/:reviewId',
    requireAdmin,
    handle((req) => deleteReview(ctx, currentUser(req), parseParams(req, reviewIdParams).reviewId)),
  );
  return router;
}
