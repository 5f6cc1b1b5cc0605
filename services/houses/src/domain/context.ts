import type { ServiceContext } from '@binzip/shared';
import type { HousesModels } from '../models';

export type HousesContext = ServiceContext<HousesModels> & {
  /** Asks the geocoding job to look for listings whose point is due (absent: only its timer does, e.g. in tests). */
  readonly geocodingPending?: () => void;
};
