import { currentUser, handle, parseBody, parseParams, parseQuery, requireAdmin, RESPONSE_CACHE_TTL_MS, type ResponseCache } from '@binzip/shared';
import { Router } from 'express';
import type { RecordsContext } from '../domain/context';
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
import { createRecordBody, myRecordsQuery, recordDetailQuery, recordIdParams, recordListParams, recordListQuery, updateRecordBody } from './schemas';

/** Mounted on `/api/v1/record`. The fixed paths come before `/:part/:type` and `/:recordId`, which would swallow them. */
export function recordRoutes(ctx: RecordsContext, cache: ResponseCache): Router {
  const router = Router();
  // Not the detail: every read of it counts a view (per address) for the hot list.
  const cached = cache.route('records', RESPONSE_CACHE_TTL_MS.records);
  router.post(
    '/',
    requireAdmin,
    handle((req) => createRecord(ctx, currentUser(req), parseBody(req, createRecordBody))),
  );
  router.get(
    '/hot',
    cached,
    handle(() => hotRecords(ctx)),
  );
  router.get(
    '/reviewee',
    requireAdmin,
    handle((req) => revieweeRecords(ctx, currentUser(req), parseQuery(req, myRecordsQuery))),
  );
  router.get(
    '/reviewer',
    requireAdmin,
    handle((req) => reviewerRecords(ctx, currentUser(req), parseQuery(req, myRecordsQuery))),
  );
  router.get(
    '/review/:recordId',
    requireAdmin,
    handle((req) => reviewDetail(ctx, currentUser(req), parseParams(req, recordIdParams))),
  );
  router.get(
    '/:part/:type',
    cached,
    handle((req) => listRecords(ctx, { ...parseParams(req, recordListParams), ...parseQuery(req, recordListQuery) })),
  );
  router.get(
    '/:recordId',
    handle((req) => recordDetail(ctx, req.auth, { ...parseParams(req, recordIdParams), ...parseQuery(req, recordDetailQuery), clientAddress: req.ip })),
  );
  router.put(
    '/:recordId',
    requireAdmin,
    handle((req) => updateRecord(ctx, currentUser(req), { ...parseParams(req, recordIdParams), ...parseBody(req, updateRecordBody) })),
  );
  router.delete(
    '/:recordId',
    requireAdmin,
    handle((req) => deleteRecord(ctx, currentUser(req), parseParams(req, recordIdParams))),
  );
  return router;
}
