import { OutboxRelay, type EventBus, type Logger } from '@binzip/shared';
import type { CommunityModels } from '../models';

/**
 * community.comment.created leaves through the outbox embedded in each comment document; this relay
 * publishes what is pending right after a write and, on a timer, whatever an outage left behind.
 */
export async function startCommentRelay(options: { bus: EventBus; models: CommunityModels; logger: Logger; intervalMs?: number }): Promise<OutboxRelay> {
  await options.bus.ensureStream('COMMUNITY');
  const relay = new OutboxRelay({ bus: options.bus, models: [options.models.Comment], logger: options.logger, intervalMs: options.intervalMs });
  relay.start();
  return relay;
}
