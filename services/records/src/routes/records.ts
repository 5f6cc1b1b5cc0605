import { currentUser, handle, idParams, pageQuery, parseBody, parseParams, parseQuery, queryEnum, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { CATEGORIES, LIMITS, LIST_TYPES, PAGE_SIZES, PARTS, RECORD_TYPES, REVIEWER_STATUSES } from '../domain/catalog';
import type { RecordsContext } from '../domain/context';
import { viewerKey } from '../domain/hits';
import {
  createRecord,
  deleteRecord,
  hotRecords,
  listRecords,
  recordDetail,
  reviewDetail,
  revieweeRecords,
  reviewerRecords,
  updateRecord,
} from '../domain/records';
import { nonBlankText } from './schemas';

const createBody = z.strictObject({
  title: nonBlankText(LIMITS.title),
  content: nonBlankText(LIMITS.content),
  part: z.enum(PARTS),
  category: z.enum(CATEGORIES),
  type: z.enum(RECORD_TYPES),
});
const updateBody = z.strictObject({ title: nonBlankText(LIMITS.title), content: nonBlankText(LIMITS.content) });
const recordIdParams = idParams('recordId');
const listParams = z.object({ part: z.enum(PARTS), type: z.enum(LIST_TYPES) });
const listQuery = z.object({ category: queryEnum(CATEGORIES), ...pageQuery(PAGE_SIZES.list, PAGE_SIZES.max) });
const mineQuery = z.object({ status: queryEnum(REVIEWER_STATUSES), ...pageQuery(PAGE_SIZES.mine, PAGE_SIZES.max) });
const commentPageQuery = z.object(pageQuery(PAGE_SIZES.comments, PAGE_SIZES.max));

/** The fixed paths come before `/record/:part/:type` and `/record/:recordId`, which would swallow them. */
export function recordRoutes(ctx: RecordsContext): Router {
  const router = Router();
  router.post(
    '/api/v1/record',
    requireAdmin,
    handle((req) => createRecord(ctx, currentUser(req), parseBody(req, createBody))),
  );
  router.get(
    '/api/v1/record/hot',
    handle(() => hotRecords(ctx)),
  );
  router.get(
    '/api/v1/record/reviewee',
    requireAdmin,
    handle((req) => revieweeRecords(ctx, currentUser(req), parseQuery(req, mineQuery))),
  );
  router.get(
    '/api/v1/record/reviewer',
    requireAdmin,
    handle((req) => reviewerRecords(ctx, currentUser(req), parseQuery(req, mineQuery))),
  );
  router.get(
    '/api/v1/record/review/:recordId',
    requireAdmin,
    handle((req) => reviewDetail(ctx, currentUser(req), parseParams(req, recordIdParams).recordId)),
  );
  router.get(
    '/api/v1/record/:part/:type',
    handle((req) => listRecords(ctx, { ...parseParams(req, listParams), ...parseQuery(req, listQuery) })),
  );
  router.get(
    '/api/v1/record/:recordId',
    handle((req) => {
      const { recordId } = parseParams(req, recordIdParams);
      const page = parseQuery(req, commentPageQuery);
      return recordDetail(ctx, req.auth, viewerKey(req.auth?.userId, req.ip), recordId, page);
    }),
  );
  router.put(
    '/api/v1/record/:recordId',
    requireAdmin,
    handle((req) => updateRecord(ctx, currentUser(req), parseParams(req, recordIdParams).recordId, parseBody(req, updateBody))),
  );
  router.delete(
    '/api/v1/record/:recordId',
    requireAdmin,
    handle((req) => deleteRecord(ctx, currentUser(req), parseParams(req, recordIdParams).recordId)),
  );
  return router;
}
