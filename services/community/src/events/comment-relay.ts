import { startOutboxRelay, type EventBus, type OutboxRelay } from '@binzip/shared';
import type { CommunityContext } from '../domain/context';

/**
 * community.comment.created leaves through the outbox embedded in each comment document; this relay
 * publishes what is pending right after a write (`ctx.eventsPending`) and, on a timer, whatever an outage
 * left behind.
 */
export function startCommentRelay(ctx: CommunityContext, options: { bus: EventBus; intervalMs?: number }): Promise<OutboxRelay> {
  return startOutboxRelay({ stream: 'COMMUNITY', bus: options.bus, models: [ctx.models.comments], logger: ctx.logger, intervalMs: options.intervalMs });
}
