import { currentUser, handle, parseParams, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { HousesContext } from '../domain/context';
import { scrapHouse, unscrapHouse } from '../domain/interactions';
import { houseParams } from './schemas';

/** /api/v1/scraps */
export function scrapRoutes(ctx: HousesContext): Router {
  const router = Router();
  router.put(
    '/:houseId',
    requireUser,
    handle((req) => scrapHouse(ctx, currentUser(req), parseParams(req, houseParams))),
  );
  router.delete(
    '/:houseId',
    requireUser,
    handle(async (req) => {
      await unscrapHouse(ctx, currentUser(req), parseParams(req, houseParams));
      return undefined;
    }),
  );
  return router;
}
