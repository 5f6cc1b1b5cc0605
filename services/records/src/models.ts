/**
 * What records stores: one mongoose schema per collection, each registered on the service's connection, and
 * `recordsModels(connection)`, the models by lower-case name that the context carries.
 */
import { addOutbox, registerModel, type OutboxEvent, projectedUserModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Category, Part, RecordType, ReviewerStatus, ReviewStatus } from './domain/vocabulary';

/**
 * A record comment. `path` is the zero-padded ids from the root comment down to this one, so sorting by
 * it gives the threaded order (each reply right after its parent, siblings oldest first) in one query.
 */
export interface CommentDoc {
  _id: number;
  recordId: number;
  authorId: number;
  parentId: number | null;
  level: number;
  path: string;
  content: string;
  deleted: boolean;
  createdAt: Date;
  updatedAt: Date;
  pendingEvents: OutboxEvent[];
}

const commentSchema = new Schema<CommentDoc>(
  {
    _id: { type: Number, required: true },
    recordId: { type: Number, required: true },
    authorId: { type: Number, required: true },
    parentId: { type: Number, default: null },
    level: { type: Number, required: true },
    path: { type: String, required: true },
    content: { type: String, required: true },
    deleted: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'comments' },
);
addOutbox(commentSchema);
commentSchema.index({ recordId: 1, path: 1 }, { unique: true });

/** Width of one id in a comment path; ids are at most 15 digits (see shared idString). */
export const PATH_ID_WIDTH = 15;
export const pathSegment = (id: number): string => String(id).padStart(PATH_ID_WIDTH, '0');

export const commentModel = (connection: Connection): Model<CommentDoc> => registerModel(connection, 'RecordComment', commentSchema);

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

export interface ReviewDoc {
  _id: number;
  recordId: number;
  authorId: number;
  content: string;
  status: ReviewStatus;
  createdAt: Date;
  updatedAt: Date;
}

const reviewSchema = new Schema<ReviewDoc>(
  {
    _id: { type: Number, required: true },
    recordId: { type: Number, required: true },
    authorId: { type: Number, required: true },
    content: { type: String, required: true },
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'reviews' },
);
reviewSchema.index({ recordId: 1, createdAt: 1, _id: 1 });
reviewSchema.index({ recordId: 1, authorId: 1, updatedAt: -1, _id: -1 });

export const reviewModel = (connection: Connection): Model<ReviewDoc> => registerModel(connection, 'RecordReview', reviewSchema);

/** One template per category: the category is the key. */
export interface TemplateDoc {
  _id: Category;
  template: string;
  updatedBy: number;
  updatedAt: Date;
}

const templateSchema = new Schema<TemplateDoc>(
  {
    _id: { type: String, required: true },
    template: { type: String, default: '' },
    updatedBy: { type: Number, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'templates' },
);

export const templateModel = (connection: Connection): Model<TemplateDoc> => registerModel(connection, 'RecordTemplate', templateSchema);

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

export type RecordsModels = ReturnType<typeof recordsModels>;

export function recordsModels(connection: Connection) {
  return {
    records: recordModel(connection),
    reviews: reviewModel(connection),
    comments: commentModel(connection),
    views: viewModel(connection),
    templates: templateModel(connection),
    users: projectedUserModel(connection),
  };
}

/** Builds the indexes the rules rely on (unique comment paths, the views' unique key) before traffic arrives. */
export async function initModels(models: RecordsModels): Promise<void> {
  await Promise.all([models.records.init(), models.reviews.init(), models.comments.init(), models.views.init(), models.templates.init(), models.users.init()]);
}
