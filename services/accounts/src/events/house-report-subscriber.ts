import { HOUSES_REPORT_CREATED, houseReportCreatedV1, type EventBus, type RunningConsumer } from '@binzip/shared';
import { applyHouseReport } from '../domain/house-reports';
import type { AccountsContext } from '../domain/context';

export const HOUSE_REPORTS_DURABLE = 'accounts-house-reports';

/** The durable consumer of `houses.report.created`: each report counts against its listing's author. */
export function startHouseReportSubscriber(ctx: Pick<AccountsContext, 'models'>, options: { bus: EventBus }): Promise<RunningConsumer> {
  return options.bus.consume({
    stream: 'HOUSES',
    durable: HOUSE_REPORTS_DURABLE,
    filterSubject: HOUSES_REPORT_CREATED,
    schema: houseReportCreatedV1,
    handle: (event) => applyHouseReport(ctx, event),
  });
}
