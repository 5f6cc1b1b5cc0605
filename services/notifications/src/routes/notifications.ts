import { operationsOf } from '@binzip/shared';
import { z } from 'zod';
import type { NotificationsContext } from '../domain/context';
import { alertStats, listFeed } from '../domain/feed';
import { listInbox, markRead } from '../domain/inbox';
import { getPreferences, setPreferences } from '../domain/preferences';
import { pushKey, subscribePush, unsubscribePush } from '../domain/push';
import { issueTicket, tokenExpiry } from '../domain/stream';
import { INBOX_ANSWERS, inboxKey } from '../cache-keys';
import {
  alertStatsQuery,
  alertStatsSchema,
  feedPageSchema,
  feedQuery,
  inboxPageSchema,
  listQuery,
  notificationParams,
  preferencesBody,
  preferencesSchema,
  pushKeySchema,
  pushSubscriptionBody,
  pushUnsubscribeBody,
} from './schemas';

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
    cached: INBOX_ANSWERS,
    cachedPerMember: true,
    dependsOn: ({ caller }) => [inboxKey(caller.userId)],
    handle: (ctx, { caller, query }) => listInbox(ctx, caller, { read: query.read, beforeId: query.id, size: query.size }),
  }),
  // Fixed paths before `/api/v1/notifications/{notificationId}`.
  operation({
    method: 'get',
    path: '/api/v1/notifications/feed',
    operationId: 'listNotificationFeed',
    summary: '알림 피드: 모든 종류 (커서, 최신순)',
    tags,
    access: 'user',
    query: feedQuery,
    data: feedPageSchema,
    handle: (ctx, { caller, query }) => listFeed(ctx, caller, { kind: query.kind, read: query.read, beforeId: query.id, size: query.size }),
  }),
  operation({
    method: 'get',
    path: '/api/v1/notifications/preferences',
    operationId: 'getNotificationPreferences',
    summary: '알림 종류별 수신 설정',
    tags,
    access: 'user',
    data: preferencesSchema,
    handle: (ctx, { caller }) => getPreferences(ctx, caller),
  }),
  operation({
    method: 'put',
    path: '/api/v1/notifications/preferences',
    operationId: 'setNotificationPreferences',
    summary: '알림 종류별 수신 설정 변경 (보낸 종류만)',
    tags,
    access: 'user',
    body: preferencesBody,
    data: preferencesSchema,
    handle: (ctx, { caller, body }) => setPreferences(ctx, caller, body),
  }),
  operation({
    method: 'post',
    path: '/api/v1/notifications/stream/ticket',
    operationId: 'issueNotificationStreamTicket',
    summary: '실시간 알림 스트림 입장권 (1회용, 30초): EventSource가 `?ticket=`으로 보냄',
    tags,
    access: 'user',
    data: z.object({ ticket: z.string() }).meta({ id: 'NotificationStreamTicket' }),
    handle: (ctx, { caller, req }) => issueTicket(ctx, caller, tokenExpiry(req.headers.authorization)),
  }),
  operation({
    method: 'get',
    path: '/api/v1/notifications/push/key',
    operationId: 'getNotificationPushKey',
    summary: '웹 푸시 VAPID 공개 키 (pushManager.subscribe의 applicationServerKey)',
    tags,
    access: 'user',
    data: pushKeySchema,
    handle: (ctx) => pushKey(ctx),
  }),
  operation({
    method: 'post',
    path: '/api/v1/notifications/push/subscriptions',
    operationId: 'subscribeNotificationPush',
    summary: '웹 푸시 구독 등록 (기기별; 브라우저의 PushSubscription JSON)',
    tags,
    access: 'user',
    body: pushSubscriptionBody,
    data: z.string().meta({ description: '등록한 푸시 주소 (endpoint)' }),
    errors: ['C0001'],
    handle: (ctx, { caller, body }) => subscribePush(ctx, caller, body),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/notifications/push/subscriptions',
    operationId: 'unsubscribeNotificationPush',
    summary: '웹 푸시 구독 해제 (본문의 endpoint)',
    tags,
    access: 'user',
    body: pushUnsubscribeBody,
    data: z.string().meta({ description: '해제한 푸시 주소 (endpoint)' }),
    errors: ['C0001'],
    handle: (ctx, { caller, body }) => unsubscribePush(ctx, caller, body),
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

/** /api/v1/admin/stats/notifications: administrators only. */
export const notificationAdminOperations = [
  operation({
    method: 'get',
    path: '/api/v1/admin/stats/notifications',
    operationId: 'notificationAlertStats',
    summary: '일별 관심 조건 알림 발송 수',
    tags: ['admin-stats-notifications'],
    access: 'admin',
    query: alertStatsQuery,
    data: alertStatsSchema,
    handle: (ctx, { query }) => alertStats(ctx, query),
  }),
];
