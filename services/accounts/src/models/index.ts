import type { Connection } from 'mongoose';
import { auditEntryModel } from './audit-entry';
import { houseReportModel } from './house-report';
import { refreshTokenModel } from './refresh-token';
import { sessionRevocationModel } from './session-revocation';
import { signInThrottleModel } from './sign-in-throttle';
import { userModel } from './user';
import { verificationModel } from './verification';

export * from './audit-entry';
export * from './house-report';
export * from './refresh-token';
export * from './session-revocation';
export * from './sign-in-throttle';
export * from './user';
export * from './verification';

export type AccountsModels = ReturnType<typeof accountsModels>;

export function accountsModels(connection: Connection) {
  return {
    users: userModel(connection),
    refreshTokens: refreshTokenModel(connection),
    sessionRevocations: sessionRevocationModel(connection),
    verifications: verificationModel(connection),
    signInThrottles: signInThrottleModel(connection),
    houseReports: houseReportModel(connection),
    /** The administrators' audit trail of every service (issue 40). */
    auditEntries: auditEntryModel(connection),
  };
}

/** Unique indexes must exist before the duplicate rules can rely on them. */
export async function initModels(models: AccountsModels): Promise<void> {
  await Promise.all([
    models.users.init(),
    models.refreshTokens.init(),
    models.sessionRevocations.init(),
    models.verifications.init(),
    models.signInThrottles.init(),
    models.houseReports.init(),
    models.auditEntries.init(),
  ]);
}
