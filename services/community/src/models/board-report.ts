import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/** What a member can report a post for (issue 40); the listing's FAKE_SALE has no meaning for a post. */
export const BoardReportTypes = ['ADVERTISING_BOARD', 'ABUSE', 'ETC'] as const;
export type BoardReportType = (typeof BoardReportTypes)[number];

/** One member's report of one post (issue 40), kept as the listing reports are (houses' `reports`). */
export interface BoardReportDoc {
  boardId: number;
  userId: number;
  reportType: BoardReportType;
  reportReason: string;
  createdAt: Date;
  /** Set when an administrator decided the post's reports (DISMISS or REMOVE); null while open. */
  closedAt?: Date | null;
  outcome?: 'REMOVED' | 'DISMISSED' | null;
  /** The administrator's note to the reporter, when the decision had one. */
  note?: string | null;
}

const boardReportSchema = new Schema<BoardReportDoc>(
  {
    boardId: { type: Number, required: true },
    userId: { type: Number, required: true },
    reportType: { type: String, required: true },
    reportReason: { type: String, required: true },
    createdAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    outcome: { type: String, default: null },
    note: { type: String, default: null },
  },
  { versionKey: false, collection: 'board_reports' },
);

// One report per member and post: a second one is a duplicate key (H0003).
boardReportSchema.index({ boardId: 1, userId: 1 }, { unique: true });
// A post's open reports, newest first (the administrators' OPEN queue), and its closed ones (CLOSED: `$ne: null`).
boardReportSchema.index({ boardId: 1, createdAt: -1, _id: -1 });
boardReportSchema.index({ boardId: 1, closedAt: 1, createdAt: -1, _id: -1 });
// A member's own reports, newest first (GET /api/v1/boards/report/mine).
boardReportSchema.index({ userId: 1, createdAt: -1, _id: -1 });

export const boardReportModel = (connection: Connection): Model<BoardReportDoc> => registerModel(connection, 'BoardReport', boardReportSchema);
