import type { Connection } from 'mongoose';
import { houseReportModel } from './house-report';
import { refreshTokenModel } from './refresh-token';
import { userModel } from './user';
import { verificationModel } from './verification';

export type AccountsModels = ReturnType<typeof accountsModels>;

export function accountsModels(connection: Connection) {
  return {
    users: userModel(connection),
    refreshTokens: refreshTokenModel(connection),
    verifications: verificationModel(connection),
    houseReports: houseReportModel(connection),
  };
}

/** Unique indexes must exist before the duplicate rules can rely on them. */
export async function initModels(models: AccountsModels): Promise<void> {
  await Promise.all([models.users.init(), models.refreshTokens.init(), models.verifications.init(), models.houseReports.init()]);
}
