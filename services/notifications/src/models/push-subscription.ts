import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One browser's Web Push subscription (issue 38), stored per device: `_id` is the push service's endpoint (a
 * device's subscription is its endpoint; the same endpoint saved again by another member moves to him, the
 * browser having changed hands). `p256dh` and `auth` are the browser's keys the payload is encrypted with.
 */
export interface PushSubscriptionDoc {
  _id: string;
  userId: number;
  p256dh: string;
  auth: string;
  /** The browser's `expirationTime`, when it gave one (informative: the push service still decides). */
  expiresAt: Date | null;
  createdAt: Date;
}

const pushSubscriptionSchema = new Schema<PushSubscriptionDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: Number, required: true },
    p256dh: { type: String, required: true },
    auth: { type: String, required: true },
    expiresAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'push_subscriptions' },
);

// A member's devices: read for every notice pushed to him, oldest first when the ceiling drops one.
pushSubscriptionSchema.index({ userId: 1, createdAt: 1 });

export const pushSubscriptionModel = (connection: Connection): Model<PushSubscriptionDoc> =>
  registerModel(connection, 'PushSubscription', pushSubscriptionSchema);
