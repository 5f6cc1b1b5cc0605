import type { Connection } from 'mongoose';
import { houseReportModel } from './house-report';
import { refreshTokenModel } from './refresh-token';
import { signInThrottleModel } from './sign-in-throttle';
import { userModel } from './user';
import { verificationModel } from './verification';

export * from './house-report';
export * from './refresh-token';
export * from './sign-in-throttle';
export * from './user';
export * from './verification';

export type AccountsModels = ReturnType<typeof accountsModels>;

export function accountsModels(connection: Connection) {
  return {
    users: userModel(connection),
    refreshTokens: refreshTokenModel(connection),
    verifications: verificationModel(connection),
    signInThrottles: signInThrottleModel(connection),
    houseReports: houseReportModel(connection),
  };
}

/** Unique indexes must exist before the duplicate rules can rely on them. */
export async function initModels(models: AccountsModels): Promise<void> {
  await Promise.all([models.users.init(), models.refreshTokens.init(), models.verifications.init(), models.signInThrottles.init(), models.houseReports.init()]);
}
