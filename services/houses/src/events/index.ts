import { adminActionRecorded, houseReportCreated, type OutboxDeclaration } from '@binzip/shared';
import type { HousesModels } from '../models';

/**
 * What houses publishes: each report carries its `houses.report.created` (accounts counts reports per author);
 * each administrator's decision on a listing carries its `audit.houses` in the listing's write (issue 40).
 */
export const housesOutbox = (models: HousesModels): OutboxDeclaration => ({
  events: [houseReportCreated, adminActionRecorded],
  models: [models.reports, models.houses],
});
