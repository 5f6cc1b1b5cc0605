import type { Connection } from 'mongoose';
import type { AccountsModels } from '../models';

/** What every use-case needs; `now` is injectable so tests can move the clock (code expiry, token expiry). */
export interface DomainContext {
  connection: Connection;
  models: AccountsModels;
  bcryptCost: number;
  now: () => Date;
  /** Called after a write that stored an outbox event, so the relay publishes it without waiting for its timer. */
  eventsPending: () => void;
}
