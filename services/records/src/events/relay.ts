import { OutboxRelay, type EventBus, type Logger } from '@binzip/shared';
import type { Connection } from 'mongoose';
import { commentModel } from '../models/comment';

/** Publishes the comment events stored with each comment; ensures the RECORDS stream first. */
export async function startCommentRelay(options: { bus: EventBus; connection: Connection; logger: Logger; intervalMs?: number }): Promise<OutboxRelay> {
  await options.bus.ensureStream('RECORDS');
  const relay = new OutboxRelay({ bus: options.bus, models: [commentModel(options.connection)], logger: options.logger, intervalMs: options.intervalMs });
  relay.start();
  return relay;
}
