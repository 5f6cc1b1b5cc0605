import { operationsOf } from '@binzip/shared';
import { z } from 'zod';
import type { NotificationsContext } from '../domain/context';
import { listInbox, markRead } from '../domain/inbox';
import { inboxKey } from '../cache-keys';
import { inboxPageSchema, listQuery, notificationParams } from './schemas';

const operation = operationsOf<NotificationsContext>();
const tags = ['notifications'];

/** /api/v1/notifications: the signed-in member's inbox. */
export const notificationOperations = [
  operation({
    method: 'get',
    path: '/api/v1/notifications',
    operationId: 'listNotifications',
    summary: '알림 목록 (커서, 최신순)',
    tags,
    access: 'user',
    query: listQuery,
    data: inboxPageSchema,
    cached: 'notifications',
    cachedPerMember: true,
    dependsOn: ({ caller }) => [inboxKey(caller.userId)],
    handle: (ctx, { caller, query }) => listInbox(ctx, caller, { read: query.read, beforeId: query.id, size: query.size }),
  }),
  operation({
    method: 'put',
    path: '/api/v1/notifications/{notificationId}',
    operationId: 'markNotificationRead',
    summary: '알림 읽음 처리',
    tags,
    access: 'user',
    params: notificationParams,
    data: z.number().int().meta({ description: '알림 id' }),
    errors: ['C0001', 'C0003'],
    // A success means the caller is the notification's recipient.
    changes: ({ caller }) => [inboxKey(caller.userId)],
    handle: (ctx, { caller, params }) => markRead(ctx, caller, params),
  }),
];
