import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';
import type { ReviewStatus } from '../domain/vocabulary';

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
