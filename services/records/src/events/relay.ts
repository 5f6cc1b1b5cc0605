import { startOutboxRelay, type EventBus, type Logger, type OutboxRelay } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { commentModel } from '../models/comment';

/** Publishes the comment events stored with each comment. */
export function startCommentRelay(options: { bus: EventBus; connection: Connection; logger: Logger; intervalMs?: number }): Promise<OutboxRelay> {
  return startOutboxRelay({
    stream: 'RECORDS',
    bus: options.bus,
    models: [commentModel(options.connection)],
    logger: options.logger,
    intervalMs: options.intervalMs,
  });
}
