import { currentUser, handle, idParams, parseBody, parseParams, parseQuery, requireAdmin, requireUser } from '@binzip/shared';
import { Router } from 'express';
import { parseListingInput } from '../domain/listing-input';
import type { HouseUseCases } from '../domain';
import { decisionBody, ownDraftsQuery, ownListQuery, publicListQuery, reportBody, scrapListQuery, waitingListQuery } from './query';

const houseIdParams = idParams('houseId');

/** /api/v1/houses. The fixed paths come before `/:houseId` so it never swallows them. */
export function housesRouter(useCases: HouseUseCases): Router {
  const router = Router();

  router.get(
    '/tmp-save',
    requireUser,
    handle((req) => useCases.queries.drafts(currentUser(req), parseQuery(req, ownDraftsQuery))),
  );

  router.get(
    '/scrap',
    requireUser,
    handle((req) => {
      const { filter, ...page } = parseQuery(req, scrapListQuery);
      return useCases.queries.scraps(currentUser(req), filter, page);
    }),
  );

  router.get(
    '/agent',
    requireUser,
    handle((req) => useCases.queries.own(currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/apply',
    requireAdmin,
    handle((req) => useCases.queries.waiting(parseQuery(req, waitingListQuery))),
  );

  router.put(
    '/apply/:houseId',
    requireAdmin,
    handle((req) => useCases.approval.decide(parseParams(req, houseIdParams).houseId, parseBody(req, decisionBody))),
  );

  router.get(
    '/user-scrap/:houseId',
    requireUser,
    handle((req) => useCases.listings.detail(currentUser(req), parseParams(req, houseIdParams).houseId)),
  );

  router.put(
    '/report/:houseId',
    requireUser,
    handle(async (req) => {
      const { houseId } = parseParams(req, houseIdParams);
      await useCases.interactions.report(currentUser(req), houseId, parseBody(req, reportBody));
      return undefined;
    }),
  );

  router.put(
    '/status/:houseId',
    requireUser,
    handle((req) => useCases.listings.complete(currentUser(req), parseParams(req, houseIdParams).houseId)),
  );

  router.post(
    '/',
    requireUser,
    handle((req) => useCases.listings.create(currentUser(req), parseListingInput(req.body))),
  );

  router.get(
    '/',
    handle((req) => useCases.queries.publicList(parseQuery(req, publicListQuery))),
  );

  router.get(
    '/:houseId',
    handle((req) => useCases.listings.detail(req.auth, parseParams(req, houseIdParams).houseId)),
  );

  router.put(
    '/:houseId',
    requireUser,
    handle((req) => {
      const { houseId } = parseParams(req, houseIdParams);
      return useCases.listings.update(currentUser(req), houseId, parseListingInput(req.body));
    }),
  );

  router.delete(
    '/:houseId',
    requireUser,
    handle(async (req) => {
      await useCases.listings.remove(currentUser(req), parseParams(req, houseIdParams).houseId);
      return undefined;
    }),
  );

  return router;
}
