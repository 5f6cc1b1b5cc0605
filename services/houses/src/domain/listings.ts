import { AppError, isAdmin, nextId, sanitizeStoredBodies, type AuthClaims, type Logger } from '@binzip/shared';
import { isListed, type DealState, type HouseDoc, type HouseModels } from '../models';
import { changeHouse, isAuthor, publishesAtOnce, readableHouse } from './access';
import type { ListingInput } from './listing-input';
import { authorsOf, toDetail } from './render';

/** Create, edit, delete, read, complete: the listing's own state machine. */
export class ListingUseCases {
  constructor(private readonly models: HouseModels) {}

  async create(claims: AuthClaims, input: ListingInput): Promise<number> {
    const now = new Date();
    const houseId = await nextId(this.models.connection, 'house');
    const dealState: DealState | null = input.tmpYn ? null : publishesAtOnce(claims) ? 'ONGOING' : 'APPLYING';
    const state = { tmpYn: input.tmpYn, dealState, reported: false, deleted: false };
    await this.models.houses.create({
      _id: houseId,
      authorId: claims.userId,
      authorType: claims.userType,
      ...input.content,
      ...state,
      listed: isListed(state),
      rejectReason: null,
      rev: 0,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    return houseId;
  }

  async update(claims: AuthClaims, houseId: number, input: ListingInput): Promise<number> {
    await changeHouse(this.models, houseId, (house) => {
      if (!house || house.deleted) throw AppError.notFound();
      if (!isAuthor(house, claims)) throw AppError.forbidden();
      if (input.tmpYn && !house.tmpYn) throw AppError.invalid('저장된 게시글은 임시저장할 수 없습니다.');
      const dealState = input.tmpYn ? null : nextDealStateOnEdit(house, claims);
      const state = { tmpYn: input.tmpYn, dealState, reported: house.reported, deleted: false };
      return {
        ...input.content,
        ...state,
        listed: isListed(state),
        authorType: claims.userType,
        rejectReason: null,
        updatedAt: new Date(),
      };
    });
    return houseId;
  }

  async remove(claims: AuthClaims, houseId: number): Promise<void> {
    await changeHouse(this.models, houseId, (house) => {
      if (!house || house.deleted) throw AppError.notFound();
      if (!isAuthor(house, claims) && !isAdmin(claims)) throw AppError.forbidden();
      return { deleted: true, deletedAt: new Date(), listed: false };
    });
  }

  async detail(claims: AuthClaims | undefined, houseId: number) {
    const house = await readableHouse(this.models, houseId, claims);
    const [authors, scrap] = await Promise.all([
      authorsOf(this.models.users, [house]),
      claims ? this.models.scraps.exists({ userId: claims.userId, houseId }).exec() : null,
    ]);
    return toDetail(house, authors, scrap !== null);
  }

  /** Deal completion (decisions.md): the author marks an ONGOING listing COMPLETED. */
  async complete(claims: AuthClaims, houseId: number): Promise<number> {
    await changeHouse(this.models, houseId, (house) => {
      if (!house) throw AppError.notFound();
      if (!isAuthor(house, claims)) throw AppError.forbidden();
      if (house.deleted || house.tmpYn || house.reported || house.dealState !== 'ONGOING') throw new AppError('H0004');
      return { dealState: 'COMPLETED', listed: isListed({ ...house, dealState: 'COMPLETED' }) };
    });
    return houseId;
  }
}

/**
 * A general user's edit sends the listing back to waiting (whatever its state); an agent's or
 * administrator's keeps an approved listing's deal state and approves anything else at once.
 */
function nextDealStateOnEdit(house: HouseDoc, claims: AuthClaims): DealState {
  if (!publishesAtOnce(claims)) return 'APPLYING';
  return house.dealState === 'ONGOING' || house.dealState === 'COMPLETED' ? house.dealState : 'ONGOING';
}

/**
 * Listings stored before bodies were sanitized are cleaned once at start (decisions-local.md): a migration
 * rather than cleaning on read, so every reader gets the same safe body at no per-request cost.
 */
export async function sanitizeStoredListings(models: HouseModels, logger: Logger): Promise<void> {
  await sanitizeStoredBodies<HouseDoc>({ model: models.houses, field: 'code', logger });
}
