import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * Wrong-password count of one account (`_id` = user id). Kept apart from the user document so the count's
 * $inc never races the compare-and-set updates of the user, and in MongoDB so every accounts instance sees it.
 */
export interface SignInThrottleDoc {
  _id: number;
  /** Consecutive wrong passwords since the last success or lock. */
  failures: number;
  /** Every sign-in is refused until then. */
  lockedUntil: Date | null;
}

const signInThrottleSchema = new Schema<SignInThrottleDoc>(
  {
    _id: { type: Number, required: true },
    failures: { type: Number, default: 0 },
    lockedUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'sign_in_throttles' },
);

export const signInThrottleModel = (connection: Connection): Model<SignInThrottleDoc> => registerModel(connection, 'SignInThrottle', signInThrottleSchema);
