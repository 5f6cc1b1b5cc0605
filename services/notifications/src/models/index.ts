import { projectedUserModel } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { notificationModel } from './notification';
import { preferencesModel } from './preferences';
import { pushSubscriptionModel } from './push-subscription';
import { savedSearchModel } from './saved-search';
import { streamTicketModel } from './stream-ticket';

export * from './notification';
export * from './preferences';
export * from './push-subscription';
export * from './saved-search';
export * from './stream-ticket';

export type NotificationsModels = ReturnType<typeof notificationsModels>;

export function notificationsModels(connection: Connection) {
  return {
    notifications: notificationModel(connection),
    savedSearches: savedSearchModel(connection),
    preferences: preferencesModel(connection),
    streamTickets: streamTicketModel(connection),
    pushSubscriptions: pushSubscriptionModel(connection),
    users: projectedUserModel(connection),
  };
}

/** Builds the indexes before anything relies on the unique key (consumers start after this). */
export async function initModels(models: NotificationsModels): Promise<void> {
  await Promise.all([
    models.notifications.init(),
    models.savedSearches.init(),
    models.preferences.init(),
    models.streamTickets.init(),
    models.pushSubscriptions.init(),
    models.users.init(),
  ]);
}
