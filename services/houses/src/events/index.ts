import { houseListingChanged, houseListingDecided, houseListingPublished, houseReportCreated, type OutboxDeclaration } from '@binzip/shared';
import type { HousesModels } from '../models';

/**
 * What houses publishes: each report carries its `houses.report.created` (accounts counts reports per author);
 * a listing's writes carry `houses.listing.published`, `.decided` and `.changed` (notifications' alerts, issue 38).
 */
export const housesOutbox = (models: HousesModels): OutboxDeclaration => ({
  events: [houseReportCreated, houseListingPublished, houseListingDecided, houseListingChanged],
  models: [models.reports, models.houses],
});
