import { handle, idParams, pageQuery, parseBody, parseParams, parseQuery, queryEnum, queryText, requireAdmin, UserStatuses, UserTypes } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { completeWithdrawal, liftSuspension, listUsers, listWithdrawals, suspendUser } from '../domain/admin';
import { userStats } from '../domain/admin-stats';
import type { DomainContext } from '../domain/context';

/** Admin lists page like the rest, with backoffice.md's default and maximum size. */
const adminPage = pageQuery(20, 100);

const userListQuery = z.object({ ...adminPage, search: queryText(100), userType: queryEnum(UserTypes), status: queryEnum(UserStatuses) });
const suspensionBody = z.strictObject({ reason: z.string().trim().min(1).max(200) });
const userIdParams = idParams('id');

/** /api/v1/admin/users, /api/v1/admin/withdrawals, /api/v1/admin/stats/users: administrators only. */
export function adminRoutes(ctx: DomainContext): Router {
  const router = Router();
  router.use(requireAdmin);

  router.get(
    '/users',
    handle(async (req) => listUsers(ctx, parseQuery(req, userListQuery))),
  );

  router.put(
    '/users/:id/suspension',
    handle(async (req) => {
      const { id } = parseParams(req, userIdParams);
      return suspendUser(ctx, id, parseBody(req, suspensionBody).reason);
    }),
  );

  router.delete(
    '/users/:id/suspension',
    handle(async (req) => liftSuspension(ctx, parseParams(req, userIdParams).id)),
  );

  router.get(
    '/withdrawals',
    handle(async (req) => listWithdrawals(ctx, parseQuery(req, z.object(adminPage)))),
  );

  router.put(
    '/withdrawals/:userId',
    handle(async (req) => completeWithdrawal(ctx, parseParams(req, idParams('userId')).userId)),
  );

  router.get(
    '/stats/users',
    handle(async () => userStats(ctx)),
  );

  return router;
}
