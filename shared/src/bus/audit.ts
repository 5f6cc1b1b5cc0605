import type { AuthClaims } from '../core/auth';
import { currentRequestId } from '../core/telemetry';
import { adminActionRecorded, type AuditService, type AuditTargetType } from './events';
import type { OutboxEvent } from './outbox';

/** One administrator's action as the service that took it describes it (issue 40's audit trail). */
export interface AdminAction {
  /** An upper-case verb: APPROVE, REJECT, SUSPEND, LIFT_SUSPENSION, COMPLETE_WITHDRAWAL, DELETE, PIN, UNPIN, DISMISS, REMOVE. */
  action: string;
  targetType: AuditTargetType;
  targetId: number;
  /** The member the action concerns (the suspended member, the listing's or post's author); null when none. */
  memberId?: number | null;
  reason?: string | null;
}

/**
 * The outbox entry of an administrator's action, to store in the same write as the action itself (then
 * `ctx.eventsPending()`). The actor is the verified caller as its token names them now; the request id is the
 * request being served, so the entry leads to the access log lines of the same request.
 */
export function auditEvent(service: AuditService, actor: AuthClaims, action: AdminAction, at: Date): OutboxEvent {
  return adminActionRecorded.outbox({
    service,
    actorId: actor.userId,
    actorUserName: actor.userName,
    action: action.action,
    targetType: action.targetType,
    targetId: action.targetId,
    memberId: action.memberId ?? null,
    reason: action.reason ?? null,
    requestId: currentRequestId() ?? null,
    occurredAt: at.toISOString(),
  });
}
