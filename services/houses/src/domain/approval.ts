import { AppError } from '@binzip/shared';
import { isListed, type HouseModels } from '../models';
import { changeHouse } from './access';

/** The administrator's decision on a waiting listing (decisions.md: approve -> ONGOING, reject -> REJECTED). */
export class ApprovalUseCases {
  constructor(private readonly models: HouseModels) {}

  async decide(houseId: number, decision: { approve: boolean; reason?: string }): Promise<number> {
    await changeHouse(this.models, houseId, (house) => {
      if (!house || house.deleted || house.tmpYn) throw AppError.notFound();
      if (house.dealState !== 'APPLYING') throw new AppError('H0004');
      if (!decision.approve) return { dealState: 'REJECTED', rejectReason: decision.reason ?? '', listed: false };
      // Approval puts the listing at the top of the newest-update-first public list.
      return { dealState: 'ONGOING', rejectReason: null, listed: isListed({ ...house, dealState: 'ONGOING' }), updatedAt: new Date() };
    });
    return houseId;
  }
}
