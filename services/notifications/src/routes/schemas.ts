import { absentQueryValue, idParams, idString, pageSchema, queryBoolean, querySize, type FieldLabels } from '@binzip/shared';
import { z } from 'zod';
import type { InboxPage, NotificationItem } from '../domain/inbox';

/** Korean names of the request fields: C0002 messages and the API document use them (shared `FieldLabels`). */
export const fieldLabels: FieldLabels = {
  read: '읽음 여부',
  id: '커서',
  size: '개수',
  notificationId: '알림 번호',
};

export const NOTIFICATION_PAGE_SIZE = 5;
export const NOTIFICATION_MAX_PAGE_SIZE = 50;

// Requests

export const listQuery = z.object({
  read: queryBoolean().meta({ description: '비우면 전체, `false` 안 읽음, `true` 읽음' }),
  // Empty on the first request, then the previous answer's nextId.
  id: z.preprocess(absentQueryValue, idString.optional()).meta({ description: '커서: 이전 응답의 nextId (첫 요청은 비움)' }),
  size: querySize(NOTIFICATION_PAGE_SIZE, NOTIFICATION_MAX_PAGE_SIZE),
});

export const notificationParams = idParams('notificationId');

// Responses (`satisfies` keeps them in step with what the domain returns)

export const notificationItemSchema = z
  .object({
    notification_id: z.number().int(),
    nick_name: z.string(),
    board_id: z.number().int(),
    board_title: z.string(),
    status: z.boolean(),
    comment: z.string(),
    comment_user: z.string(),
    type: z.enum(['board', 'record']),
  })
  .meta({ id: 'NotificationItem' }) satisfies z.ZodType<NotificationItem>;

export const inboxPageSchema = z
  .object({
    nextId: z.number().int().nullable(),
    notifications: pageSchema(notificationItemSchema, { totals: false, pageable: true }),
  })
  .meta({ id: 'NotificationInbox' }) satisfies z.ZodType<InboxPage>;
