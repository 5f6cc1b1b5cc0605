import { currentUser, handle, parseParams, parseQuery, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { NotificationsContext } from '../domain/context';
import { listInbox, markRead } from '../domain/inbox';
import { listQuery, notificationParams } from './schemas';

export function notificationRoutes(ctx: NotificationsContext): Router {
  const router = Router();

  router.get(
    '/',
    requireUser,
    handle(async (req) => {
      const query = parseQuery(req, listQuery);
      return listInbox(ctx, currentUser(req), { read: query.read, beforeId: query.id, size: query.size });
    }),
  );

  router.put(
    '/:notificationId',
    requireUser,
    handle(async (req) => {
      return markRead(ctx, currentUser(req), parseParams(req, notificationParams));
    }),
  );

  return router;
}
