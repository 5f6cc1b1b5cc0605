import { AppError, houseListingDecided } from '@binzip/shared';
import { isListed } from '../models';
import { changeHouse } from './access';
import type { HousesContext } from './context';

export interface ApprovalDecision {
  houseId: number;
  approve: boolean;
  reason?: string;
}

/** The administrator's decision on a waiting listing (decisions.md: approve -> ONGOING, reject -> REJECTED). */
export async function decideApproval(ctx: HousesContext, decision: ApprovalDecision): Promise<number> {
  const { houseId } = decision;
  await changeHouse(
    ctx,
    houseId,
    (house) => {
      if (!house || house.deleted || house.tmpYn) throw AppError.notFound();
      if (house.dealState !== 'APPLYING') throw new AppError('H0004');
      if (!decision.approve) return { dealState: 'REJECTED', rejectReason: decision.reason ?? '', listed: false };
      // Approval puts the listing at the top of the newest-update-first public list.
      return { dealState: 'ONGOING', rejectReason: null, listed: isListed({ ...house, dealState: 'ONGOING' }), updatedAt: ctx.now() };
    },
    (_before, after) => [
      // The author is told of the decision (notifications' LISTING_APPROVED / LISTING_REJECTED).
      houseListingDecided.outbox({
        houseId,
        authorId: after.authorId,
        title: after.title,
        approved: decision.approve,
        reason: decision.approve ? null : (decision.reason ?? ''),
        occurredAt: ctx.now().toISOString(),
      }),
    ],
  );
  return houseId;
}
