import { createApiRegistry, generateApiDocument, registerOperation, type ApiDocument } from '@binzip/shared';
import { z } from 'zod';
import { fieldLabels, inboxPageSchema, listQuery, notificationParams } from './routes/schemas';

/** The notifications part of the API document, from the schemas the routes validate with. */
export function apiDocument(): ApiDocument {
  const registry = createApiRegistry();
  const tags = ['notifications'];
  registerOperation(registry, {
    method: 'get',
    path: '/api/v1/notifications',
    operationId: 'listNotifications',
    summary: '알림 목록 (커서, 최신순)',
    tags,
    access: 'user',
    query: listQuery,
    data: inboxPageSchema,
  });
  registerOperation(registry, {
    method: 'put',
    path: '/api/v1/notifications/{notificationId}',
    operationId: 'markNotificationRead',
    summary: '알림 읽음 처리',
    tags,
    access: 'user',
    params: notificationParams,
    data: z.number().int().meta({ description: '알림 id' }),
    errors: ['C0001', 'C0003'],
  });
  return generateApiDocument(registry, { title: 'binzip notifications', version: '1.0.0' }, fieldLabels);
}
