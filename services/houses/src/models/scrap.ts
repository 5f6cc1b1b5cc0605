import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

export interface ScrapDoc {
  userId: number;
  houseId: number;
  createdAt: Date;
}

const scrapSchema = new Schema<ScrapDoc>(
  {
    userId: { type: Number, required: true },
    houseId: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'scraps' },
);

scrapSchema.index({ userId: 1, houseId: 1 }, { unique: true });
// A member's scraps, newest first (`_id` breaks ties, so it is in the index too).
scrapSchema.index({ userId: 1, createdAt: -1, _id: -1 });
// The members who scrapped one listing: told when its price or deal state changes (issue 38).
scrapSchema.index({ houseId: 1 });

export const scrapModel = (connection: Connection): Model<ScrapDoc> => registerModel(connection, 'Scrap', scrapSchema);
