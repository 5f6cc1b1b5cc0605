import { addOutbox, registerModel, type OutboxEvent } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

export const ReportTypes = ['FAKE_SALE', 'ADVERTISING_BOARD', 'ETC'] as const;
export type ReportType = (typeof ReportTypes)[number];

export interface ReportDoc {
  houseId: number;
  userId: number;
  reportType: ReportType;
  reportReason: string;
  createdAt: Date;
  /** Set when an administrator handled the listing's reports (DISMISS or REMOVE); null while open. */
  closedAt?: Date | null;
  /** How the administrator decided (issue 40): REMOVED (the listing was taken down) or DISMISSED; null while open. */
  outcome?: 'REMOVED' | 'DISMISSED' | null;
  /** The administrator's note to the reporter and the author, when the decision had one. */
  note?: string | null;
  /** `houses.report.created`, published by the relay (the report is its own outbox). */
  pendingEvents?: OutboxEvent[];
}

const reportSchema = new Schema<ReportDoc>(
  {
    houseId: { type: Number, required: true },
    userId: { type: Number, required: true },
    reportType: { type: String, required: true },
    reportReason: { type: String, required: true },
    createdAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    outcome: { type: String, default: null },
    note: { type: String, default: null },
  },
  { versionKey: false, collection: 'reports' },
);

reportSchema.index({ houseId: 1, userId: 1 }, { unique: true });
// A listing's reports newest first (the administrators' report list), open or closed ones.
reportSchema.index({ houseId: 1, createdAt: -1, _id: -1 });
reportSchema.index({ houseId: 1, closedAt: 1, createdAt: -1, _id: -1 });
// A member's own reports, newest first (GET /api/v1/houses/report/mine).
reportSchema.index({ userId: 1, createdAt: -1, _id: -1 });
addOutbox(reportSchema);

export const reportModel = (connection: Connection): Model<ReportDoc> => registerModel(connection, 'Report', reportSchema);
