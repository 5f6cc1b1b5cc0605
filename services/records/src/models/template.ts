import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Category } from '../domain/vocabulary';

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
