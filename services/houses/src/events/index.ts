import { houseReportCreated, type OutboxDeclaration } from '@binzip/shared';
import type { HousesModels } from '../models';

/** What houses publishes: each report carries its `houses.report.created` (accounts counts reports per author). */
export const housesOutbox = (models: HousesModels): OutboxDeclaration => ({ events: [houseReportCreated], models: [models.reports] });
