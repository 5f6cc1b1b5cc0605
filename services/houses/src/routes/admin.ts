import { handle, parseBody, parseParams, parseQuery, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { decideReport, houseStats, listReports } from '../domain/admin-reports';
import type { HousesContext } from '../domain/context';
import { houseParams, reportDecisionBody, reportListQuery } from './schemas';

/** /api/v1/admin/reports and /api/v1/admin/stats/houses: administrators only. */
export function adminRoutes(ctx: HousesContext): Router {
  const router = Router();
  router.use(requireAdmin);

  router.get(
    '/reports',
    handle((req) => listReports(ctx, parseQuery(req, reportListQuery))),
  );

  router.put(
    '/reports/:houseId',
    handle((req) => decideReport(ctx, { ...parseParams(req, houseParams), ...parseBody(req, reportDecisionBody) })),
  );

  router.get(
    '/stats/houses',
    handle(() => houseStats(ctx)),
  );

  return router;
}
