import { addOutbox, registerModel, type OutboxEvent } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

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
