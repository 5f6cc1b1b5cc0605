/**
 * What community stores: one mongoose schema per collection, each registered on the service's connection, and
 * `communityModels(connection)`, the models by lower-case name that the context carries.
 */
import { registerModel, addOutbox, type OutboxEvent, projectedUserModel } from '@binzip/shared';
import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { pictureModel } from '@binzip/shared/media';

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

export interface BoardDoc {
  _id: number;
  title: string;
  /** The body as the author sent it (HTML), sanitized (shared `sanitizeBody`). */
  code: string;
  /** The body's text without markup, kept for search so a search never re-parses HTML. */
  plainText: string;
  oneLineContent: string;
  imageUrls: string[];
  category: string;
  prefixCategory: string;
  fixed: boolean;
  authorId: number;
  loveCount: number;
  commentCount: number;
  deleted: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** OPEN while members' reports wait for an administrator, CLOSED once decided; absent when never reported (issue 40). */
  reportStatus?: 'OPEN' | 'CLOSED' | null;
  /** The latest report's time: the administrators' queue is sorted by it. */
  lastReportedAt?: Date | null;
  /** The latest report decision (DISMISS or REMOVE), its note and time. */
  moderation?: { action: 'DISMISS' | 'REMOVE'; note: string | null; decidedAt: Date } | null;
  /** An administrator's action on the post (`audit.community`: pin, unpin, delete, report decision; issue 40), stored with its write. */
  pendingEvents?: OutboxEvent[];
}

const boardSchema = new Schema<BoardDoc>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true },
    code: { type: String, required: true },
    // Empty for a body without text (only images, empty paragraphs): `required` would reject '' for a String.
    plainText: { type: String, default: '' },
    oneLineContent: { type: String, default: '' },
    imageUrls: { type: [String], default: [] },
    category: { type: String, required: true },
    prefixCategory: { type: String, required: true },
    fixed: { type: Boolean, required: true },
    authorId: { type: Number, required: true },
    loveCount: { type: Number, required: true, default: 0 },
    commentCount: { type: Number, required: true, default: 0 },
    deleted: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    reportStatus: { type: String, default: null },
    lastReportedAt: { type: Date, default: null },
    moderation: { type: Schema.Types.Mixed, default: null },
  },
  { versionKey: false, collection: 'boards' },
);

// One index per list shape: public list RECENT / POPULAR (with and without category), preview, own posts.
boardSchema.index({ deleted: 1, prefixCategory: 1, fixed: -1, createdAt: -1, _id: -1 });
boardSchema.index({ deleted: 1, prefixCategory: 1, category: 1, fixed: -1, createdAt: -1, _id: -1 });
boardSchema.index({ deleted: 1, prefixCategory: 1, fixed: -1, loveCount: -1, createdAt: -1, _id: -1 });
boardSchema.index({ deleted: 1, prefixCategory: 1, category: 1, fixed: -1, loveCount: -1, createdAt: -1, _id: -1 });
boardSchema.index({ authorId: 1, deleted: 1, createdAt: -1, _id: -1 });
// The administrators' report queue: OPEN or CLOSED, by the latest report's time.
boardSchema.index({ reportStatus: 1, lastReportedAt: -1, _id: -1 });
addOutbox(boardSchema);

export type BoardModel = Model<BoardDoc>;

export const boardModel = (connection: Connection): BoardModel => registerModel(connection, 'Board', boardSchema);

export interface CommentDoc {
  _id: number;
  boardId: number;
  authorId: number;
  content: string;
  /**
   * Soft delete: the document (and any event still waiting in its outbox) must outlive the delete,
   * so a comment removed right after it was written is still announced exactly once.
   */
  deleted: boolean;
  /** Copied from the board when it is deleted, so the caller's comment list can filter without a join. */
  boardDeleted: boolean;
  createdAt: Date;
  updatedAt: Date;
  pendingEvents: OutboxEvent[];
}

const commentSchema = new Schema<CommentDoc>(
  {
    _id: { type: Number, required: true },
    boardId: { type: Number, required: true },
    authorId: { type: Number, required: true },
    content: { type: String, required: true },
    deleted: { type: Boolean, required: true, default: false },
    boardDeleted: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'comments' },
);
addOutbox(commentSchema);

// A board's comments oldest first; the caller's comments newest first.
commentSchema.index({ boardId: 1, deleted: 1, _id: 1 });
commentSchema.index({ authorId: 1, deleted: 1, boardDeleted: 1, _id: -1 });

export type CommentModel = Model<CommentDoc>;

export const commentModel = (connection: Connection): CommentModel => registerModel(connection, 'Comment', commentSchema);

export interface LoveDoc {
  _id: Types.ObjectId;
  userId: number;
  boardId: number;
  /** Copied from the board when it is deleted, so the caller's loved list can filter without a join. */
  boardDeleted: boolean;
  createdAt: Date;
}

const loveSchema = new Schema<LoveDoc>(
  {
    userId: { type: Number, required: true },
    boardId: { type: Number, required: true },
    boardDeleted: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'loves' },
);

// One love per user and board: the unique index, not a read-then-write, decides P0000 under races.
loveSchema.index({ userId: 1, boardId: 1 }, { unique: true });
loveSchema.index({ userId: 1, boardDeleted: 1, createdAt: -1, _id: -1 });
loveSchema.index({ boardId: 1 });

export type LoveModel = Model<LoveDoc>;

export const loveModel = (connection: Connection): LoveModel => registerModel(connection, 'Love', loveSchema);

export type CommunityModels = ReturnType<typeof communityModels>;

export function communityModels(connection: Connection) {
  return {
    boards: boardModel(connection),
    boardReports: boardReportModel(connection),
    comments: commentModel(connection),
    loves: loveModel(connection),
    users: projectedUserModel(connection),
    /** Uploaded pictures (their files are in the picture store). */
    pictures: pictureModel(connection),
  };
}

/** Builds every index before the service takes requests: the love rule depends on its unique index. */
export async function initModels(models: CommunityModels): Promise<void> {
  await Promise.all([
    models.boards.init(),
    models.boardReports.init(),
    models.comments.init(),
    models.loves.init(),
    models.users.init(),
    models.pictures.init(),
  ]);
}
