import { startOutboxRelay, type EventBus, type OutboxRelay } from '@binzip/shared';
import type { RecordsContext } from '../domain/context';

export interface CommentRelayOptions {
  bus: EventBus;
  /** How often pending events are retried without a kick (NATS was down when they were written). */
  intervalMs?: number;
}

/**
 * Publishes the `records.comment.created` events stored with each comment (the domain kicks it through
 * `ctx.eventsPending` after a write; the timer picks up what could not be published then).
 */
export function startCommentRelay(ctx: RecordsContext, options: CommentRelayOptions): Promise<OutboxRelay> {
  return startOutboxRelay({
    stream: 'RECORDS',
    bus: options.bus,
    models: [ctx.models.comments],
    logger: ctx.logger,
    intervalMs: options.intervalMs,
  });
}
