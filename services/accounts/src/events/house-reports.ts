import { consume, houseReportCreated } from '@binzip/shared';
import type { AccountsContext } from '../domain/context';
import { applyHouseReport } from '../domain/house-reports';

/** Each report counts against its listing's author. */
export const houseReports = (ctx: Pick<AccountsContext, 'models'>) =>
  consume(houseReportCreated, { durable: 'accounts-house-reports', handle: (event) => applyHouseReport(ctx, event) });
