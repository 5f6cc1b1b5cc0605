import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { QUERY_SHAPES_DIR_ENV, recordQueryShapes } from './query-shapes';

/**
 * How the driver rides out a store outage: it notices a lost or returning server within a heartbeat, and an
 * operation that finds no server gives up after the selection timeout, well inside the gateway's 10 s, so a
 * request during an outage gets a quick 503 envelope instead of hanging. Commands are never held in mongoose's
 * buffer (which would wait 10 s more before failing); the driver's own pool reconnects when the store is back.
 * A store that stays away is the outage watchdog's business (service.ts): the process exits and is restarted.
 */
const MONGO_CONNECTION_OPTIONS = {
  serverSelectionTimeoutMS: 5_000,
  heartbeatFrequencyMS: 2_000,
  connectTimeoutMS: 5_000,
  bufferCommands: false,
  autoIndex: true,
} as const;

// Mongoose formats a stack trace on every query it runs (`new Error().stack` in `Query.exec`), only to quote it
// if the same query object is run twice, which this code never does; the site benchmark's profile showed it in
// every read.
mongoose.set('skipOriginalStackTraces', true);

/** Whether a connection is up now (mongoose's `readyState` is a numeric enum). */
export const isConnected = (connection: Connection): boolean => connection.readyState === mongoose.ConnectionStates.connected;

/** One connection per service database; mongoose's global connection is never used. */
export async function connectMongo(uri: string, dbName: string): Promise<Connection> {
  // Test runs record every query's shape to check it against the declared indexes (query-shapes.ts).
  const shapesDir = process.env[QUERY_SHAPES_DIR_ENV];
  const connection = mongoose.createConnection(uri, { dbName, ...MONGO_CONNECTION_OPTIONS, monitorCommands: Boolean(shapesDir) });
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

const { MongoServerSelectionError, MongoNetworkError, MongoNotConnectedError, MongoTopologyClosedError, MongoServerClosedError } = mongoose.mongo;

/** Errors that mean the store could not be reached (not that the request was wrong): answered 503. */
export function isStoreUnavailableError(err: unknown): boolean {
  return (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoServerClosedError ||
    err instanceof mongoose.Error.MongooseServerSelectionError
  );
}
