import { currentUser, handle, idParams, idString, parseParams, parseQuery, queryBoolean, queryInt, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { Connection } from 'mongoose';
import { z } from 'zod';
import { listInbox, markRead } from '../domain/inbox';

export const NOTIFICATION_PAGE_SIZE = 5;
export const NOTIFICATION_MAX_PAGE_SIZE = 50;

const listQuery = z.object({
  read: queryBoolean(),
  // Empty on the first request, then the previous answer's nextId.
  id: z.preprocess((value) => (value === '' ? undefined : value), idString.optional()),
  size: queryInt(NOTIFICATION_PAGE_SIZE, 1, NOTIFICATION_MAX_PAGE_SIZE),
});

const notificationParams = idParams('notificationId');

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
