import { startOutboxRelay, type EventBus, type Logger, type OutboxRelay } from '@binzip/shared';
import type { CommunityModels } from '../models';

/**
 * community.comment.created leaves through the outbox embedded in each comment document; this relay
 * publishes what is pending right after a write and, on a timer, whatever an outage left behind.
 */
export function startCommentRelay(options: { bus: EventBus; models: CommunityModels; logger: Logger; intervalMs?: number }): Promise<OutboxRelay> {
  return startOutboxRelay({ stream: 'COMMUNITY', bus: options.bus, models: [options.models.Comment], logger: options.logger, intervalMs: options.intervalMs });
}
