import { currentUser, handle, parseBody, parseParams, parseQuery, requireAdmin, requireUser, RESPONSE_CACHE_TTL_MS, type ResponseCache } from '@binzip/shared';
import { Router } from 'express';
import { decideApproval } from '../domain/approval';
import type { HousesContext } from '../domain/context';
import { reportHouse } from '../domain/interactions';
import { completeDeal, createListing, listingDetail, removeListing, updateListing } from '../domain/listings';
import { draftList, ownList, publicList, scrapList, waitingList } from '../domain/queries';
import { approvalBody, houseParams, listingBody, ownDraftsQuery, ownListQuery, publicListQuery, reportBody, scrapListQuery, waitingListQuery } from './schemas';

/** /api/v1/houses. The fixed paths come before `/:houseId` so it never swallows them. */
export function houseRoutes(ctx: HousesContext, cache: ResponseCache): Router {
  const router = Router();
  const cached = cache.route('houses', RESPONSE_CACHE_TTL_MS.houses);

  router.get(
    '/tmp-save',
    requireUser,
    handle((req) => draftList(ctx, currentUser(req), parseQuery(req, ownDraftsQuery))),
  );

  router.get(
    '/scrap',
    requireUser,
    handle((req) => scrapList(ctx, currentUser(req), parseQuery(req, scrapListQuery))),
  );

  // `/my` is the original web client's name for the same list ("내 매물 관리").
  router.get(
    ['/agent', '/my'],
    requireUser,
    handle((req) => ownList(ctx, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/apply',
    requireAdmin,
    handle((req) => waitingList(ctx, parseQuery(req, waitingListQuery))),
  );

  router.put(
    '/apply/:houseId',
    requireAdmin,
    handle((req) => decideApproval(ctx, { ...parseParams(req, houseParams), ...parseBody(req, approvalBody) })),
  );

  router.get(
    '/user-scrap/:houseId',
    requireUser,
    handle((req) => listingDetail(ctx, currentUser(req), parseParams(req, houseParams))),
  );

  router.put(
    '/report/:houseId',
    requireUser,
    handle(async (req) => {
      await reportHouse(ctx, currentUser(req), { ...parseParams(req, houseParams), ...parseBody(req, reportBody) });
      return undefined;
    }),
  );

  router.put(
    '/status/:houseId',
    requireUser,
    handle((req) => completeDeal(ctx, currentUser(req), parseParams(req, houseParams))),
  );

  router.post(
    '/',
    requireUser,
    handle((req) => createListing(ctx, currentUser(req), parseBody(req, listingBody))),
  );

  router.get(
    '/',
    cached,
    handle((req) => publicList(ctx, parseQuery(req, publicListQuery))),
  );

  router.get(
    '/:houseId',
    cached,
    handle((req) => listingDetail(ctx, req.auth, parseParams(req, houseParams))),
  );

  router.put(
    '/:houseId',
    requireUser,
    handle((req) => updateListing(ctx, currentUser(req), { ...parseParams(req, houseParams), listing: parseBody(req, listingBody) })),
  );

  router.delete(
    '/:houseId',
    requireUser,
    handle(async (req) => {
      await removeListing(ctx, currentUser(req), parseParams(req, houseParams));
      return undefined;
    }),
  );

  return router;
}
