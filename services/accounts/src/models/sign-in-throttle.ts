import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * Password attempts of one account (`_id` = user id), for sign-in, check/password and the profile change's
 * current password alike. Kept apart from the user document so its updates never race the compare-and-set
 * updates of the user, and in MongoDB so every accounts instance sees it.
 */
export interface SignInThrottleDoc {
  _id: number;
  /**
   * Attempts of this lock window that are being judged or were judged wrong: reserved before the password is
   * compared, so parallel guesses can never exceed the limit. A right password gives its slot back.
   */
  attempts: number;
  /** Of `attempts`, those still being judged. */
  pending: number;
  /** When the last attempt was reserved (a reservation left by a crashed process goes stale after a while). */
  reservedAt: Date | null;
  /** Every attempt is refused until then. */
  lockedUntil: Date | null;
}

const signInThrottleSchema = new Schema<SignInThrottleDoc>(
  {
    _id: { type: Number, required: true },
    attempts: { type: Number, default: 0 },
    pending: { type: Number, default: 0 },
    reservedAt: { type: Date, default: null },
    lockedUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'sign_in_throttles' },
);

export const signInThrottleModel = (connection: Connection): Model<SignInThrottleDoc> => registerModel(connection, 'SignInThrottle', signInThrottleSchema);
