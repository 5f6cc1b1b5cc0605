import { startOutboxRelay, type EventBus, type OutboxRelay } from '@binzip/shared';
import type { HousesContext } from '../domain/context';

export interface ReportPublisherOptions {
  bus: EventBus;
  /** How often the relay looks for events nobody kicked it for (a crash between the write and the kick). */
  intervalMs: number;
}

/**
 * Publishes `houses.report.created` from the reports' outbox (each report carries its own event); accounts
 * keeps the authors' report counts from it. Report writes kick it through `ctx.eventsPending`.
 */
export function startReportPublisher(ctx: HousesContext, options: ReportPublisherOptions): Promise<OutboxRelay> {
  return startOutboxRelay({ stream: 'HOUSES', bus: options.bus, models: [ctx.models.reports], logger: ctx.logger, intervalMs: options.intervalMs });
}
