import { projectedUserModel } from '@binzip/shared';
import { pictureModel } from '@binzip/shared/media';
import type { Connection } from 'mongoose';
import { houseModel } from './house';
import { reportModel } from './report';
import { scrapModel } from './scrap';

export * from './house';
export * from './report';
export * from './scrap';

export type HousesModels = ReturnType<typeof housesModels>;

export function housesModels(connection: Connection) {
  return {
    houses: houseModel(connection),
    scraps: scrapModel(connection),
    reports: reportModel(connection),
    users: projectedUserModel(connection),
    /** Uploaded pictures (their files are in the picture store). */
    pictures: pictureModel(connection),
  };
}

/** Builds the indexes; the unique ones (scrap and report per user) must exist before writes rely on them. */
export async function initModels(models: HousesModels): Promise<void> {
  await Promise.all([models.houses.init(), models.scraps.init(), models.reports.init(), models.users.init(), models.pictures.init()]);
}
