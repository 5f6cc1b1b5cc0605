import { handle, parseBody, parseParams, parseQuery, requireAdmin } from '@binzip/shared';
import { Router } from 'express';
import { liftSuspension, listUsers, suspendUser } from '../domain/admin-members';
import { userStats } from '../domain/admin-stats';
import type { AccountsContext } from '../domain/context';
import { completeWithdrawal, listWithdrawals } from '../domain/withdrawals';
import { adminUserListQuery, adminUserParams, suspensionBody, withdrawalListQuery, withdrawalParams } from './schemas';

/** /api/v1/admin/users, /api/v1/admin/withdrawals, /api/v1/admin/stats/users: administrators only. */
export function adminRoutes(ctx: AccountsContext): Router {
  const router = Router();
  router.use(requireAdmin);

  router.get(
    '/users',
    handle(async (req) => listUsers(ctx, parseQuery(req, adminUserListQuery))),
  );

  router.put(
    '/users/:id/suspension',
    handle(async (req) => suspendUser(ctx, { ...parseParams(req, adminUserParams), ...parseBody(req, suspensionBody) })),
  );

  router.delete(
    '/users/:id/suspension',
    handle(async (req) => liftSuspension(ctx, parseParams(req, adminUserParams))),
  );

  router.get(
    '/withdrawals',
    handle(async (req) => listWithdrawals(ctx, parseQuery(req, withdrawalListQuery))),
  );

  router.put(
    '/withdrawals/:userId',
    handle(async (req) => completeWithdrawal(ctx, parseParams(req, withdrawalParams))),
  );

  router.get(
    '/stats/users',
    handle(async () => userStats(ctx)),
  );

  return router;
}
