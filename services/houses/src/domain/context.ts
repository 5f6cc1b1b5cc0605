import type { ServiceContext } from '@binzip/shared';
import type { HousesModels } from '../models';

export type HousesContext = ServiceContext<HousesModels>;
