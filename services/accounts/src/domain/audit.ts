import {
  AppError,
  buildPage,
  isDuplicateKeyError,
  pageWindow,
  toIsoOffset,
  type AdminActionRecordedV1,
  type AuditService,
  type AuditTargetType,
  type PageObject,
  type PageRequest,
} from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { AuditEntryDoc } from '../models';
import type { AccountsContext } from './context';

/**
 * The administrators' audit trail (issue 40). Accounts is its one owner (docs/decisions-local.md "Audit trail"):
 * every service stores an `audit.<service>` event with the action's own write, and accounts keeps each event once.
 */

/** Stores one published action; a redelivery (same event id) stores nothing. */
export async function recordAuditEntry(ctx: Pick<AccountsContext, 'models'>, event: AdminActionRecordedV1): Promise<void> {
  try {
    await ctx.models.auditEntries.create({
      _id: event.eventId,
      service: event.service,
      actorId: event.actorId,
      actorUserName: event.actorUserName,
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      memberId: event.memberId,
      reason: event.reason,
      requestId: event.requestId,
      at: new Date(event.occurredAt),
    });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

export interface AuditItem {
  id: string;
  actor: { id: number; userName: string };
  action: string;
  targetType: AuditTargetType;
  targetId: number;
  reason: string | null;
  at: string;
  requestId: string | null;
  /** The service that took the action. */
  service: AuditService;
  /** The member the action concerns (the suspended member, the listing's or post's author); null when none. */
  memberId: number | null;
}

export interface AuditQuery extends PageRequest {
  /** An actor's id (digits) or userName as at the time of the action. */
  actor?: string;
  action?: string;
  targetType?: AuditTargetType;
  targetId?: number;
  memberId?: number;
  from?: Date;
  to?: Date;
}

export function auditItem(entry: AuditEntryDoc): AuditItem {
  return {
    id: entry._id,
    actor: { id: entry.actorId, userName: entry.actorUserName },
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    reason: entry.reason,
    at: toIsoOffset(entry.at),
    requestId: entry.requestId,
    service: entry.service,
    memberId: entry.memberId,
  };
}

/** A page of entries, newest first, narrowed by every filter given (AND). */
export async function listAudit(ctx: AccountsContext, query: AuditQuery): Promise<PageObject<AuditItem>> {
  const filter: FilterQuery<AuditEntryDoc> = {};
  if (query.actor !== undefined) {
    if (/^\d{1,15}$/.test(query.actor)) filter.actorId = Number(query.actor);
    else filter.actorUserName = query.actor;
  }
  if (query.action) filter.action = query.action;
  if (query.targetType) filter.targetType = query.targetType;
  if (query.targetId !== undefined) filter.targetId = query.targetId;
  if (query.memberId !== undefined) filter.memberId = query.memberId;
  if (query.from && query.to && query.from > query.to) throw AppError.invalid('기간의 시작이 끝보다 늦습니다.');
  if (query.from || query.to) filter.at = { ...(query.from ? { $gte: query.from } : {}), ...(query.to ? { $lte: query.to } : {}) };
  const { skip, limit } = pageWindow(query);
  const [entries, total] = await Promise.all([
    ctx.models.auditEntries.find(filter).sort({ at: -1, _id: -1 }).skip(skip).limit(limit).lean<AuditEntryDoc[]>().exec(),
    // Without a filter the collection's own count answers (no scan); a filtered count reads its index range.
    Object.keys(filter).length === 0 ? ctx.models.auditEntries.estimatedDocumentCount().exec() : ctx.models.auditEntries.countDocuments(filter).exec(),
  ]);
  return buildPage(entries.map(auditItem), query, total);
}
