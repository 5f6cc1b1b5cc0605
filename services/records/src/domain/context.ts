import type { ServiceContext } from '@binzip/shared';
import type { RecordsModels } from '../models';

/** Models, the clock (creation dates, the 24 h hit window, the 7-day hot window) and the outbox kick. */
export type RecordsContext = ServiceContext<RecordsModels>;
