import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model, type Types } from 'mongoose';

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
