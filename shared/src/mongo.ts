import mongoose, { Schema, type Connection, type Model } from 'mongoose';

/** One connection per service database; mongoose's global connection is never used. */
export async function connectMongo(uri: string, dbName: string): Promise<Connection> {
  const connection = mongoose.createConnection(uri, { dbName, serverSelectionTimeoutMS: 15_000, autoIndex: true });
  await connection.asPromise();
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

/**
 * The model `name` on `connection`, registered on first use. Models live on the service's own connection
 * (never mongoose's global one), and asking twice must not register twice.
 */
export function registerModel<T, M extends Model<T> = Model<T>>(connection: Connection, name: string, schema: Schema<T>): M {
  return ((connection.models[name] as M | undefined) ?? connection.model<T>(name, schema)) as M;
}

const counterModel = (connection: Connection): Model<CounterDoc> => registerModel(connection, 'Counter', counterSchema);

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
