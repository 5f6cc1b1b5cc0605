import { adminActionRecorded, type OutboxDeclaration } from '@binzip/shared';
import { houseListingChanged, houseListingDecided, houseListingPublished, houseReportCreated } from '@binzip/events';
import type { HousesModels } from '../models';

/**
 * What houses publishes: each report carries its `houses.report.created` (accounts counts reports per author);
 * a listing's writes carry `houses.listing.published`, `.decided` and `.changed` (notifications' alerts, issue 38);
 * each administrator's decision on a listing carries its `audit.houses` in the listing's write too (issue 40).
 */
export const housesOutbox = (models: HousesModels): OutboxDeclaration => ({
  events: [houseReportCreated, houseListingPublished, houseListingDecided, houseListingChanged, adminActionRecorded],
  models: [models.reports, models.houses],
});
