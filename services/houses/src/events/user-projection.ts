import { startUserProjection, type EventBus, type Logger, type RunningConsumer } from '@binzip/shared';
import type { Connection } from 'mongoose';

/**
 * Author nicknames and types come from accounts' `accounts.user.*` snapshots kept in the local `users`
 * collection. One durable consumer is shared by all instances, so each snapshot is applied once.
 */
export function startAuthorProjection(bus: EventBus, connection: Connection, logger: Logger): Promise<RunningConsumer> {
  return startUserProjection({ bus, connection, service: 'houses', logger });
}
