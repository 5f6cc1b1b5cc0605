import { projectedUserModel } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { notificationModel } from './notification';

export * from './notification';

export type NotificationsModels = ReturnType<typeof notificationsModels>;

export function notificationsModels(connection: Connection) {
  return { notifications: notificationModel(connection), users: projectedUserModel(connection) };
}

/** Builds the indexes before anything relies on the unique key (consumers start after this). */
export async function initModels(models: NotificationsModels): Promise<void> {
  await Promise.all([models.notifications.init(), models.users.init()]);
}
