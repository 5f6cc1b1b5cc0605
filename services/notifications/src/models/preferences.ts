import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/** A member's choice of the kinds of notice he gets (issue 38); a kind not named is on. `_id` is the member's id. */
export interface PreferencesDoc {
  _id: number;
  off: string[];
  updatedAt: Date;
}

const preferencesSchema = new Schema<PreferencesDoc>(
  {
    _id: { type: Number, required: true },
    off: { type: [String], default: [] },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'notification_preferences' },
);

// Who turned a kind off: asked once per notice being stored for many members (the alert fan-out).
preferencesSchema.index({ off: 1 });

export const preferencesModel = (connection: Connection): Model<PreferencesDoc> => registerModel(connection, 'NotificationPreferences', preferencesSchema);
