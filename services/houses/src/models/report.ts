import { Schema, type Connection, type Model } from 'mongoose';

export const ReportTypes = ['FAKE_SALE', 'ADVERTISING_BOARD', 'ETC'] as const;
export type ReportType = (typeof ReportTypes)[number];

export interface ReportDoc {
  houseId: number;
  userId: number;
  reportType: ReportType;
  reportReason: string;
  createdAt: Date;
}

const reportSchema = new Schema<ReportDoc>(
  {
    houseId: { type: Number, required: true },
    userId: { type: Number, required: true },
    reportType: { type: String, required: true },
    reportReason: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'reports' },
);

reportSchema.index({ houseId: 1, userId: 1 }, { unique: true });

export function reportModel(connection: Connection): Model<ReportDoc> {
  return (connection.models.Report as Model<ReportDoc>) ?? connection.model<ReportDoc>('Report', reportSchema);
}
