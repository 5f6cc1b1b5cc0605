import { addOutbox, registerModel, type OutboxEvent } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

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
