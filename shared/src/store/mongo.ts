/**
 * What the runtime does with a service's MongoDB database: the connection and its models, and the ceilings
 * counted in it (below).
 */
import { isIPv6 } from 'node:net';
import type { Request, RequestHandler } from 'express';
import mongoose, { Schema, type Connection, type Model, type mongo } from 'mongoose';
import { RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { isAdmin, WRITE_METHODS } from '../core/auth';
import { ceilingConfigShape } from '../core/config';
import { TooManyRequestsError } from '../core/wire';
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

/**
 * A model's collection as the driver sees it, typed with the stored shape: for the lean reads and plain inserts on
 * hot paths, whose filters and documents are already in their stored types, so mongoose's query (casting, options,
 * its promise chain) or document (hydration, validation) would add CPU and nothing else. Mongoose's collection is
 * the driver's, typed with ObjectId ids; the stored shape is the model's own.
 */
export function storedCollection<T extends mongo.Document>(model: Model<T>): mongo.Collection<T> {
  return model.collection as unknown as mongo.Collection<T>;
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

/**
 * Ceilings: how often one member or one client address may do something, counted in the service's MongoDB
 * database (collection `ceilings`), so every instance of a service counts against the same numbers. Past a
 * ceiling the answer is 429 C0004 with `Retry-After` (seconds until the window frees up). Windows are fixed:
 * the first counted act opens one of `windowSeconds`.
 */
export interface CeilingRule {
  /** Names the count (`member-writes`, `sign-ups`, …); keys of different ceilings never meet. */
  name: string;
  /** Acts allowed per window; 0 turns the ceiling off. */
  limit: number;
  windowSeconds: number;
}

const COLLECTION = 'ceilings';

export type CeilingSettings = z.output<z.ZodObject<typeof ceilingConfigShape>>;

/** The settings with every ceiling at its default (tests and tools that read no environment). */
export const defaultCeilingSettings = (): CeilingSettings => z.object(ceilingConfigShape).parse({});

/** One counted ceiling on the shared store. */
export class Ceiling {
  private readonly limiter: RateLimiterMongo | undefined;
  private indexes: Promise<void> | undefined;

  constructor(
    connection: Connection,
    readonly rule: CeilingRule,
  ) {
    if (rule.limit === 0) return;
    this.limiter = new RateLimiterMongo({
      // The driver's client on the service's own database (mongoose's Connection is not the driver's Db).
      storeClient: connection.getClient(),
      dbName: connection.name,
      tableName: COLLECTION,
      keyPrefix: rule.name,
      points: rule.limit,
      duration: rule.windowSeconds,
      // Indexes are made once, before the first count (below), not fire-and-forget from the constructor.
      disableIndexesCreation: true,
      // A key past its ceiling is refused from memory until its window ends: a flood costs no store round trip.
      inMemoryBlockOnConsumed: rule.limit + 1,
    });
  }

  /** Counts one act under `key`; past the ceiling, throws 429 C0004 with the seconds until it frees up. */
  async take(key: string): Promise<void> {
    const limiter = this.limiter;
    if (!limiter) return;
    // The unique index on `key` is what makes concurrent first acts count in one document.
    await (this.indexes ??= limiter.createIndexes().catch((err: unknown) => {
      this.indexes = undefined;
      throw err;
    }));
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw new TooManyRequestsError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1_000)));
      throw rejection;
    }
  }
}

/** Route middleware counting each request under `keyOf(req)`; a request without a key is not counted. */
export function ceilingGuard(ceiling: Ceiling, keyOf: (req: Request) => string | undefined): RequestHandler {
  return async (req, _res, next) => {
    const key = keyOf(req);
    if (key !== undefined) await ceiling.take(key);
    next();
  };
}

/**
 * The client's address as the key of a per-address ceiling: `req.ip` (the `X-Forwarded-For` chain as far as
 * `TRUST_PROXY` trusts it: the gateway's entry on the services). An IPv6 client is counted by its /56, the
 * block one subscriber usually holds, so it cannot step past a ceiling by changing its last 72 bits.
 */
export function addressKey(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups].map((g) => parseInt(g, 16) || 0);
  return `${groups
    .slice(0, 3)
    .map((g) => g.toString(16))
    .join(':')}:${((groups[3] ?? 0) & 0xff00).toString(16)}::/56`;
}

export const clientAddressOf = (req: Request): string | undefined => addressKey(req.ip);

/** The member-writes ceiling as app middleware: every authenticated member's write, whatever the route. */
export function memberWriteCeiling(connection: Connection, settings: CeilingSettings): RequestHandler {
  const ceiling = new Ceiling(connection, {
    name: 'member-writes',
    limit: settings.CEILING_MEMBER_WRITES,
    windowSeconds: settings.CEILING_MEMBER_WRITES_WINDOW_SECONDS,
  });
  return ceilingGuard(ceiling, (req) => (req.auth && WRITE_METHODS.has(req.method) && !isAdmin(req.auth) ? String(req.auth.userId) : undefined));
}
