import { handle, idParams, pageQuery, parseBody, parseParams, parseQuery, queryEnum, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { decideReport, houseStats, listReports, ReportActions, ReportStatuses } from '../domain/admin-reports';
import type { HouseModels } from '../models';

const reportListQuery = z.object({ status: queryEnum(ReportStatuses).transform((s) => s ?? 'OPEN'), ...pageQuery(20, 100) });
const decisionBody = z.strictObject({ action: z.enum(ReportActions) });

/** /api/v1/admin/reports and /api/v1/admin/stats/houses: administrators only. */
export function adminRouter(models: HouseModels): Router {
  const router = Router();
  router.use(requireAdmin);

  router.get(
    '/reports',
    handle((req) => {
      const { status, ...page } = parseQuery(req, reportListQuery);
      return listReports(models, status, page);
    }),
  );

  router.put(
    '/reports/:houseId',
    handle((req) => decideReport(models, parseParams(req, idParams('houseId')).houseId, parseBody(req, decisionBody).action)),
  );

  router.get(
    '/stats/houses',
    handle(() => houseStats(models)),
  );

  return router;
}
