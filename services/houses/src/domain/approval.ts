import { AppError, auditEvent, type AuthClaims } from '@binzip/shared';
import { houseListingDecided } from '@binzip/events';
import { isListed } from '../models';
import { changeHouse } from './access';
import type { HousesContext } from './context';

export interface ApprovalDecision {
  houseId: number;
  approve: boolean;
  reason?: string;
}

/**
 * The administrator's decision on a waiting listing (decisions.md: approve -> ONGOING, reject -> REJECTED). The
 * audit entry (APPROVE or REJECT with the reason, issue 40) is stored in the same write as the decision.
 */
export async function decideApproval(ctx: HousesContext, admin: AuthClaims, decision: ApprovalDecision): Promise<number> {
  const { houseId } = decision;
  const reason = decision.reason ?? '';
  await changeHouse(
    ctx,
    houseId,
    (house) => {
      if (!house || house.deleted || house.tmpYn) throw AppError.notFound();
      if (house.dealState !== 'APPLYING') throw new AppError('H0004');
      if (!decision.approve) return { dealState: 'REJECTED', rejectReason: reason, listed: false };
      // Approval puts the listing at the top of the newest-update-first public list.
      return { dealState: 'ONGOING', rejectReason: null, listed: isListed({ ...house, dealState: 'ONGOING' }), updatedAt: ctx.now() };
    },
    (house, after) => [
      auditEvent(
        'houses',
        admin,
        {
          action: decision.approve ? 'APPROVE' : 'REJECT',
          targetType: 'HOUSE',
          targetId: houseId,
          memberId: house.authorId,
          reason: decision.approve ? null : reason || null,
        },
        ctx.now(),
      ),
      // The author is told of the decision (notifications' LISTING_APPROVED / LISTING_REJECTED).
      houseListingDecided.outbox({
        houseId,
        authorId: after.authorId,
        title: after.title,
        approved: decision.approve,
        reason: decision.approve ? null : reason,
        occurredAt: ctx.now().toISOString(),
      }),
    ],
  );
  return houseId;
}

/** One row's outcome of a bulk decision: `SUCCESS` or the error code the single decision would have answered. */
export interface BulkOutcome {
  id: number;
  code: string;
  message: string;
}

/**
 * The same decision on several listings (issue 40): each id is decided on its own, in order, so one that does not
 * exist or was already handled fails alone (its code and Korean message) and the others still succeed; each
 * success has its own audit entry, a failure none. Ids repeated in one request are decided once (the repeat
 * answers H0004, as a second decision would).
 */
export async function decideApprovals(
  ctx: HousesContext,
  admin: AuthClaims,
  input: { ids: number[]; approve: boolean; reason?: string },
): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = [];
  for (const id of input.ids) {
    try {
      await decideApproval(ctx, admin, { houseId: id, approve: input.approve, reason: input.reason });
      outcomes.push({ id, code: 'SUCCESS', message: '성공' });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcomes.push({ id, code: err.code, message: err.message });
    }
  }
  return outcomes;
}
