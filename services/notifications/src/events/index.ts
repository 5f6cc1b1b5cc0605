import type { Config } from '../config';
import type { NotificationsContext } from '../domain/context';
import { boardComments } from './board-comments';
import { recordComments } from './record-comments';

/** How often an event is tried and how long between tries (`EVENT_MAX_DELIVER`, `EVENT_BACKOFF_MS`). */
export type EventSettings = Pick<Config, 'EVENT_MAX_DELIVER' | 'EVENT_BACKOFF_MS'>;

/**
 * Every event notifications consumes; main.ts hands them to runService, tests start the same list. Each is
 * acked only after its notifications are stored; the unique key (kind, commentId, recipientId) makes a
 * redelivery harmless.
 */
export const notificationsConsumers = (ctx: NotificationsContext, settings: EventSettings) => [boardComments(ctx, settings), recordComments(ctx, settings)];
