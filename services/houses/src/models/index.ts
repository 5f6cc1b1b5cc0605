import { projectedUserModel, type ProjectedUser } from '@binzip/shared';
import type { Connection, Model } from 'mongoose';
import { houseModel, type HouseDoc } from './house';
import { reportModel, type ReportDoc } from './report';
import { scrapModel, type ScrapDoc } from './scrap';

export interface HouseModels {
  connection: Connection;
  houses: Model<HouseDoc>;
  scraps: Model<ScrapDoc>;
  reports: Model<ReportDoc>;
  users: Model<ProjectedUser>;
}

export function houseModels(connection: Connection): HouseModels {
  return {
    connection,
    houses: houseModel(connection),
    scraps: scrapModel(connection),
    reports: reportModel(connection),
    users: projectedUserModel(connection),
  };
}

/** Builds the indexes; the unique ones (scrap and report per user) must exist before writes rely on them. */
export async function ensureIndexes(models: HouseModels): Promise<void> {
  await Promise.all([models.houses.init(), models.scraps.init(), models.reports.init(), models.users.init()]);
}

export * from './house';
export * from './report';
export * from './scrap';
