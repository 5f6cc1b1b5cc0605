import { projectedUserModel, startUserProjection, type EventBus, type Logger, type RunningConsumer } from '@binzip/shared';
import type { Connection } from 'mongoose';

const SERVICE = 'notifications';

/**
 * The same names EventBus derives for its prefixed durables (it keeps them private); needed to reset the
 * projection's durable consumer.
 */
export function userProjectionDurable(prefix: string): { stream: string; durable: string } {
  const durable = `${SERVICE}-users`;
  return {
    stream: prefix ? `${prefix.toUpperCase().replace(/-/g, '_')}_ACCOUNTS` : 'ACCOUNTS',
    durable: prefix ? `${prefix}_${durable}` : durable,
  };
}

/**
 * The recipient nicknames come from this projection of `accounts.user.*`. A durable consumer remembers
 * what it acked, so a new instance on an empty database would otherwise never see the users published
 * before it: when the local `users` collection is empty the durable is dropped and re-created, and
 * replays the last snapshot of every user.
 */
export async function startNotificationUserProjection(options: { bus: EventBus; connection: Connection; prefix: string; logger: Logger }): Promise<RunningConsumer> {
  const users = projectedUserModel(options.connection);
  await users.init();
  if ((await users.estimatedDocumentCount().exec()) === 0) {
    const { stream, durable } = userProjectionDurable(options.prefix);
    const manager = await options.bus.connection.jetstreamManager();
    const dropped = await manager.consumers.delete(stream, durable).catch(() => false);
    if (dropped) options.logger.info('user projection empty: replaying accounts snapshots', { durable });
  }
  return startUserProjection({ bus: options.bus, connection: options.connection, service: SERVICE, logger: options.logger });
}
