import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One `houses.report.created` event as accounts received it; `_id` is the event id, so a redelivered event
 * is stored once. The author's `reportCount` and `reportedAt` are derived from these rows.
 */
export interface HouseReportDoc {
  _id: string;
  authorId: number;
  houseId: number;
  reportedAt: Date;
}

const houseReportSchema = new Schema<HouseReportDoc>(
  {
    _id: { type: String, required: true },
    authorId: { type: Number, required: true },
    houseId: { type: Number, required: true },
    reportedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'house_reports' },
);
// An author's latest report (reportedAt) and their count.
houseReportSchema.index({ authorId: 1, reportedAt: -1 });

export const houseReportModel = (connection: Connection): Model<HouseReportDoc> => registerModel(connection, 'HouseReport', houseReportSchema);
