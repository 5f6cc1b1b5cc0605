import type { Logger } from '@binzip/shared';
import type { RecordsModels } from '../models';

/** What the use-cases need: the service's models, a clock (tests move it), and the outbox kick. */
export interface RecordsContext {
  models: RecordsModels;
  now: () => Date;
  logger: Logger;
  /** Called after a write that stored an outbox event, so it leaves at once instead of on the relay's timer. */
  eventsPending: () => void;
}
