import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { QUERY_SHAPES_DIR_ENV, recordQueryShapes } from './query-shapes';

/** One connection per service database; mongoose's global connection is never used. */
export async function connectMongo(uri: string, dbName: string): Promise<Connection> {
  // Test runs record every query's shape to check it against the declared indexes (query-shapes.ts).
  const shapesDir = process.env[QUERY_SHAPES_DIR_ENV];
  const connection = mongoose.createConnection(uri, { dbName, serverSelectionTimeoutMS: 15_000, autoIndex: true, monitorCommands: Boolean(shapesDir) });
  await connection.asPromise();
  if (shapesDir) recordQueryShapes(connection, shapesDir);
  return connection;
}

interface CounterDoc {
  _id: string;
  seq: number;
}

const counterSchema = new Schema<CounterDoc>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  { versionKey: false, collection: 'counters' },
);

function counterModel(connection: Connection): Model<CounterDoc> {
  return (connection.models.Counter as Model<CounterDoc>) ?? connection.model<CounterDoc>('Counter', counterSchema);
}

/** The spec's ids are integers: one atomic `$inc` counter per sequence name and database. */
export async function nextId(connection: Connection, sequence: string): Promise<number> {
  const counter = await counterModel(connection)
    .findOneAndUpdate({ _id: sequence }, { $inc: { seq: 1 } }, { upsert: true, new: true })
    .lean()
    .exec();
  if (!counter) throw new Error(`counter ${sequence} was not returned`);
  return counter.seq;
}

export function isDuplicateKeyError(err: unknown): boolean {
  return (err as { code?: number } | null)?.code === 11000;
}

/** Escapes user text for use inside a RegExp (search filters are substring matches, not patterns). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
