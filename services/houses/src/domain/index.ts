import type { HouseModels } from '../models';
import { ApprovalUseCases } from './approval';
import { InteractionUseCases } from './interactions';
import { ListingUseCases } from './listings';
import { ListingQueries } from './queries';

export interface HouseUseCases {
  listings: ListingUseCases;
  queries: ListingQueries;
  interactions: InteractionUseCases;
  approval: ApprovalUseCases;
}

export function houseUseCases(models: HouseModels, eventsPending?: () => void): HouseUseCases {
  return {
    listings: new ListingUseCases(models),
    queries: new ListingQueries(models),
    interactions: new InteractionUseCases(models, eventsPending),
    approval: new ApprovalUseCases(models),
  };
}
