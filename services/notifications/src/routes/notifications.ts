import { currentUser, handle, parseParams, parseQuery, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { Connection } from 'mongoose';
import { listInbox, markRead } from '../domain/inbox';
import { listQuery, notificationParams } from './schemas';

export function notificationRoutes(deps: { connection: Connection }): Router {
  const router = Router();

  router.get(
    '/',
    requireUser,
    handle(async (req) => {
      const query = parseQuery(req, listQuery);
      return listInbox(deps.connection, { recipientId: currentUser(req).userId, read: query.read, beforeId: query.id, size: query.size });
    }),
  );

  router.put(
    '/:notificationId',
    requireUser,
    handle(async (req) => {
      const { notificationId } = parseParams(req, notificationParams);
      return markRead(deps.connection, notificationId, currentUser(req).userId);
    }),
  );

  return router;
}
