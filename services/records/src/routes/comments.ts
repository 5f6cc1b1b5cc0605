import { currentUser, handle, idParams, parseBody, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { LIMITS } from '../domain/catalog';
import { createComment, deleteComment, updateComment } from '../domain/comments';
import type { RecordsContext } from '../domain/context';
import { bodyId, nonBlankText } from './schemas';

const createBody = z.strictObject({
  record_id: bodyId,
  // A top-level comment sends null; leaving the member out means the same.
  parent_id: bodyId
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  content: nonBlankText(LIMITS.commentContent),
});
const updateBody = z.strictObject({ content: nonBlankText(LIMITS.commentContent) });
const commentIdParams = idParams('commentId');

export function commentRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/api/v1/record_comment',
    requireUser,
    handle((req) => createComment(ctx, currentUser(req), parseBody(req, createBody))),
  );
  router.put(
    '/api/v1/record_comment/:commentId',
    requireUser,
    handle((req) => updateComment(ctx, currentUser(req), parseParams(req, commentIdParams).commentId, parseBody(req, updateBody).content)),
  );
  router.delete(
    '/api/v1/record_comment/:commentId',
    requireUser,
    handle((req) => deleteComment(ctx, currentUser(req), parseParams(req, commentIdParams).commentId)),
  );
  return router;
}
