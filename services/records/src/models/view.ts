import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The last time a viewer's visit counted as a hit on a record. `_id` is `<recordId>|<viewer>`, so the
 * unique primary key makes "count at most once per 24 h" safe under concurrent views.
 */
export interface ViewDoc {
  _id: string;
  countedAt: Date;
}

const viewSchema = new Schema<ViewDoc>(
  { _id: { type: String, required: true }, countedAt: { type: Date, required: true } },
  { versionKey: false, collection: 'views' },
);
// A marker older than the window no longer blocks anything, so MongoDB may drop it (dev-mongo keeps it, harmlessly).
viewSchema.index({ countedAt: 1 }, { expireAfterSeconds: 2 * 24 * 60 * 60 });

export const viewModel = (connection: Connection): Model<ViewDoc> => registerModel(connection, 'RecordView', viewSchema);
