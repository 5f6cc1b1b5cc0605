import { adminActionRecorded, consume, sessionsRevoked, userSnapshots, type OutboxDeclaration } from '@binzip/shared';
import { houseReportCreated } from '@binzip/events';
import type { AccountsContext } from '../domain/context';
import { recordAuditEntry } from '../domain/audit';
import { applyHouseReport } from '../domain/house-reports';
import type { AccountsModels } from '../models';

/**
 * What accounts publishes: every change of a user's snapshot fields carries its `accounts.user.<id>`, every
 * ending of sessions its `sessions.revoked` (one `session_revocations` document each).
 */
export const accountsOutbox = (models: AccountsModels): OutboxDeclaration => ({
  events: [userSnapshots, sessionsRevoked, adminActionRecorded],
  models: [models.users, models.sessionRevocations],
});

/** Every event accounts consumes; main.ts hands them to runService, tests start the same list. */
export const accountsConsumers = (ctx: Pick<AccountsContext, 'models'>) => [
  // Each report counts against its listing's author (one receipt per event id).
  consume(houseReportCreated, { durable: 'accounts-house-reports', handle: (event) => applyHouseReport(ctx, event) }),
  // Every service's administrators' actions, kept once each (the audit trail, issue 40).
  consume(adminActionRecorded, { durable: 'accounts-audit', handle: (event) => recordAuditEntry(ctx, event) }),
];
