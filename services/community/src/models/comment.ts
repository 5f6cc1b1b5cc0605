import { addOutbox, registerModel, type OutboxEvent } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

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
