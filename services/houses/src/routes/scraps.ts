import { currentUser, handle, idParams, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { HouseUseCases } from '../domain';

const houseIdParams = idParams('houseId');

/** /api/v1/scraps */
export function scrapsRouter(useCases: HouseUseCases): Router {
  const router = Router();
  router.put(
    '/:houseId',
    requireUser,
    handle((req) => useCases.interactions.scrap(currentUser(req), parseParams(req, houseIdParams).houseId)),
  );
  router.delete(
    '/:houseId',
    requireUser,
    handle(async (req) => {
      await useCases.interactions.unscrap(currentUser(req), parseParams(req, houseIdParams).houseId);
      return undefined;
    }),
  );
  return router;
}
