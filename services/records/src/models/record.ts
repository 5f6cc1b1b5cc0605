import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Category, Part, RecordType, ReviewerStatus } from '../domain/vocabulary';

export interface ReviewerEntry {
  userId: number;
  status: ReviewerStatus;
}

/**
 * A team record. The review outcome is kept as two counters next to the reviewers so that one atomic
 * single-document update changes a reviewer's status and the outcome together (no transactions needed):
 * approved <=> notApproved == 0, rejected <=> rejected > 0, otherwise waiting.
 */
export interface RecordDoc {
  _id: number;
  title: string;
  content: string;
  part: Part;
  type: RecordType;
  category: Category;
  authorId: number;
  reviewers: ReviewerEntry[];
  notApproved: number;
  rejected: number;
  hits: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

const reviewerSchema = new Schema<ReviewerEntry>({ userId: { type: Number, required: true }, status: { type: String, required: true } }, { _id: false });

const recordSchema = new Schema<RecordDoc>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true },
    content: { type: String, required: true },
    part: { type: String, required: true },
    type: { type: String, required: true },
    category: { type: String, required: true },
    authorId: { type: Number, required: true },
    reviewers: { type: [reviewerSchema], default: [] },
    notApproved: { type: Number, required: true },
    rejected: { type: Number, required: true },
    hits: { type: Number, required: true, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'records' },
);
// Every list is newest first with `_id` breaking ties, so the index carries `_id` too (no in-memory sort).
// The public lists: approved records by part/type/category, or all of them.
recordSchema.index({ deletedAt: 1, notApproved: 1, part: 1, type: 1, category: 1, createdAt: -1, _id: -1 });
recordSchema.index({ deletedAt: 1, notApproved: 1, createdAt: -1, _id: -1 });
// Hot: approved records of the last days by hits (equality, then the sort, then the date range).
recordSchema.index({ deletedAt: 1, notApproved: 1, hits: -1, createdAt: -1, _id: -1 });
// The reviewee list (records I wrote, by status) and the reviewer list (records I review).
recordSchema.index({ authorId: 1, deletedAt: 1, createdAt: -1, _id: -1 });
recordSchema.index({ 'reviewers.userId': 1, deletedAt: 1, createdAt: -1, _id: -1 });

export const recordModel = (connection: Connection): Model<RecordDoc> => registerModel(connection, 'Record', recordSchema);
