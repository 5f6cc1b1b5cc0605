import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

export type Channel = 'sms' | 'email';

/** One document per channel and target (`sms:01012345678`, `email:a@b.co`): the live code and the send log. */
export interface VerificationDoc {
  _id: string;
  codeHash: string | null;
  salt: string | null;
  expiresAt: Date | null;
  failedChecks: number;
  used: boolean;
  /** Send times within the short rate-limit window (10 minutes). */
  sends: Date[];
  /** Send times within the daily window (24 hours). */
  dailySends: Date[];
  /** Set by a successful check; update/phone and update/email need it to be in the future. */
  verifiedUntil: Date | null;
}

const verificationSchema = new Schema<VerificationDoc>(
  {
    _id: { type: String, required: true },
    codeHash: { type: String, default: null },
    salt: { type: String, default: null },
    expiresAt: { type: Date, default: null },
    failedChecks: { type: Number, default: 0 },
    used: { type: Boolean, default: false },
    sends: { type: [Date], default: [] },
    dailySends: { type: [Date], default: [] },
    verifiedUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'verifications' },
);

export const verificationModel = (connection: Connection): Model<VerificationDoc> => registerModel(connection, 'Verification', verificationSchema);

export const verificationKey = (channel: Channel, target: string): string => `${channel}:${target}`;
