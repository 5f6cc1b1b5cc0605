import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from 'mongoose';
import { currentRequestId } from '../core/telemetry';

/**
 * "Every query is served by an index", checked from the queries the code really sends. With
 * `BINZIP_QUERY_SHAPES_DIR` set (the jest run sets it, and the processes it starts inherit it), every
 * connection from `connectMongo` records the shape of each find, count and aggregate (which fields are
 * matched by equality or by range, and the sort) plus the indexes its models declare, as JSON lines in
 * one file per process. `findUnservedQueries` then checks each shape against the declarations. The local
 * store ignores non-unique indexes, so this checks shapes against declarations, not timings.
 */
export const QUERY_SHAPES_DIR_ENV = 'BINZIP_QUERY_SHAPES_DIR';

/** `eq`: equality or `$in` (an index prefix); `range`: bounds an index; `residual`: filtered after the fetch. */
export type FieldUse = 'eq' | 'range' | 'residual';

export interface QueryShape {
  kind: 'query';
  collection: string;
  command: string;
  /** One entry per `$or` branch (a single entry without `$or`). */
  branches: Array<Record<string, FieldUse>>;
  sort: Array<[string, 1 | -1]>;
  /**
   * `request`: sent while serving an HTTP request (or an event that carried its request id): the queries
   * users' traffic drives, which must be served. `other`: start-up, relays, events without an id, and the
   * tests' own look-ups in the store (supertest runs the app in the test's process), reported apart.
   */
  origin?: 'request' | 'other';
}

export interface IndexDeclaration {
  kind: 'indexes';
  collection: string;
  indexes: Array<Array<[string, 1 | -1]>>;
}

type Filter = Record<string, unknown>;

function fieldUse(value: unknown): FieldUse {
  if (value instanceof RegExp) return value.source.startsWith('^') ? 'range' : 'residual';
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return 'eq';
  const operators = Object.keys(value);
  if (!operators.some((key) => key.startsWith('$'))) return 'eq';
  if (operators.some((op) => op === '$eq' || op === '$in' || op === '$elemMatch')) return 'eq';
  if (operators.includes('$regex')) {
    const pattern = (value as { $regex: unknown }).$regex;
    return String(pattern instanceof RegExp ? pattern.source : pattern).startsWith('^') ? 'range' : 'residual';
  }
  if (operators.some((op) => ['$gt', '$gte', '$lt', '$lte', '$exists'].includes(op))) return 'range';
  return 'residual';
}

/** Flattens `$and` and splits `$or` into branches, each combined with the rest of the filter. */
/** `{$elemMatch: {field: …}}` over subdocuments (not `{$elemMatch: {$gt: …}}` over scalars). */
function isElemMatchOfFields(value: unknown): boolean {
  const elemMatch = value && typeof value === 'object' && !(value instanceof RegExp) ? (value as Record<string, unknown>).$elemMatch : undefined;
  return !!elemMatch && typeof elemMatch === 'object' && Object.keys(elemMatch).every((k) => !k.startsWith('$'));
}

export function filterBranches(filter: Filter = {}): Array<Record<string, FieldUse>> {
  const base: Record<string, FieldUse> = {};
  let branches: Array<Record<string, FieldUse>> = [{}];
  const visit = (part: Filter) => {
    for (const [key, value] of Object.entries(part)) {
      if (key === '$and' && Array.isArray(value)) for (const sub of value) visit(sub as Filter);
      else if (key === '$or' && Array.isArray(value)) {
        const alternatives = value.flatMap((sub) => filterBranches(sub as Filter));
        branches = branches.flatMap((branch) => alternatives.map((alt) => ({ ...branch, ...alt })));
      } else if (!key.startsWith('$') && isElemMatchOfFields(value)) {
        // `{reviewers: {$elemMatch: {userId: 3}}}` is served by an index on `reviewers.userId`.
        visit(Object.fromEntries(Object.entries((value as { $elemMatch: Filter }).$elemMatch).map(([sub, v]) => [`${key}.${sub}`, v])));
      } else if (!key.startsWith('$')) {
        const use = fieldUse(value);
        // A field both matched exactly and bounded is as good as its best use.
        base[key] = base[key] === 'eq' || use === 'eq' ? 'eq' : base[key] === 'range' || use === 'range' ? 'range' : use;
      }
    }
  };
  visit(filter);
  return branches.map((branch) => ({ ...base, ...branch }));
}

/** The driver sends a find's sort as a Map (key order matters), an aggregate's `$sort` as a plain object. */
const sortOf = (sort: unknown): Array<[string, 1 | -1]> => {
  const entries = sort instanceof Map ? [...(sort as Map<string, unknown>).entries()] : sort && typeof sort === 'object' ? Object.entries(sort) : [];
  return entries.map(([field, dir]) => [field, Number(dir) < 0 || dir === 'desc' || dir === 'descending' ? -1 : 1]);
};

/** The shape of a driver command, or undefined for commands that are not reads of a collection. */
export function shapeOf(command: Record<string, unknown>): QueryShape | undefined {
  if (typeof command.find === 'string') {
    return { kind: 'query', collection: command.find, command: 'find', branches: filterBranches(command.filter as Filter), sort: sortOf(command.sort) };
  }
  if (typeof command.count === 'string') {
    return { kind: 'query', collection: command.count, command: 'count', branches: filterBranches(command.query as Filter), sort: [] };
  }
  if (typeof command.aggregate === 'string' && Array.isArray(command.pipeline)) {
    const stages = command.pipeline as Array<Record<string, unknown>>;
    const match = stages[0]?.$match as Filter | undefined;
    const sortStage = stages[match ? 1 : 0]?.$sort;
    return { kind: 'query', collection: command.aggregate, command: 'aggregate', branches: filterBranches(match), sort: sortOf(sortStage) };
  }
  return undefined;
}

/**
 * Whether an index serves one branch: its leading keys are matched by equality, then the sort follows
 * in the index's order (or exactly reversed), and without a sort, the first key after the equality
 * prefix may carry a range. A sort served from the index's first key counts (a walk in order, stopped by
 * the limit); a query that neither bounds nor orders by any index is a collection scan.
 */
export function indexServes(index: Array<[string, 1 | -1]>, fields: Record<string, FieldUse>, sort: Array<[string, 1 | -1]>): boolean {
  let prefix = 0;
  while (prefix < index.length && fields[index[prefix][0]] === 'eq') prefix += 1;
  if (sort.length > 0) {
    const following = index.slice(prefix, prefix + sort.length);
    // An equality-matched field in the sort is constant: it needs no place in the index.
    const needed = sort.filter(([field]) => fields[field] !== 'eq');
    if (needed.length === 0) return prefix > 0;
    if (following.length < needed.length) return false;
    const same = needed.every(([field, dir], i) => following[i][0] === field && following[i][1] === dir);
    const reversed = needed.every(([field, dir], i) => following[i][0] === field && following[i][1] === -dir);
    return same || reversed;
  }
  if (prefix > 0) return true;
  return index.length > 0 && fields[index[0][0]] === 'range';
}

export interface UnservedQuery {
  collection: string;
  command: string;
  branch: Record<string, FieldUse>;
  sort: Array<[string, 1 | -1]>;
  origin?: 'request' | 'other';
}

/** Every recorded branch no declared index (or `_id`) serves, except collections the allow-list names. */
/** `allow`: collection name, or `collection:field,field` for one filter shape, to the reason it may scan. */
export function findUnservedQueries(shapes: QueryShape[], declarations: IndexDeclaration[], allow: Record<string, string> = {}): UnservedQuery[] {
  const indexesOf = new Map<string, Array<Array<[string, 1 | -1]>>>();
  for (const declaration of declarations) {
    const known = indexesOf.get(declaration.collection) ?? [[['_id', 1]]];
    for (const index of declaration.indexes) if (!known.some((k) => JSON.stringify(k) === JSON.stringify(index))) known.push(index);
    indexesOf.set(declaration.collection, known);
  }
  const unserved: UnservedQuery[] = [];
  const seen = new Set<string>();
  for (const shape of shapes) {
    if (allow[shape.collection]) continue;
    // `count` without a filter is answered from the collection's metadata (estimatedDocumentCount).
    if (shape.command === 'count' && shape.branches.every((branch) => Object.keys(branch).length === 0)) continue;
    const indexes = indexesOf.get(shape.collection) ?? [[['_id', 1]]];
    for (const branch of shape.branches) {
      if (indexes.some((index) => indexServes(index, branch, shape.sort))) continue;
      if (allow[`${shape.collection}:${Object.keys(branch).sort().join(',')}`]) continue;
      const key = JSON.stringify([shape.collection, shape.command, branch, shape.sort, shape.origin]);
      if (seen.has(key)) continue;
      seen.add(key);
      unserved.push({ collection: shape.collection, command: shape.command, branch, sort: shape.sort, origin: shape.origin });
    }
  }
  return unserved;
}

function declaredIndexes(connection: Connection, collection: string): Array<Array<[string, 1 | -1]>> {
  const indexes: Array<Array<[string, 1 | -1]>> = [];
  for (const model of Object.values(connection.models)) {
    if (model.collection.collectionName !== collection) continue;
    for (const [keys] of model.schema.indexes()) {
      indexes.push(Object.entries(keys as Record<string, number | string>).map(([field, dir]) => [field, Number(dir) < 0 ? -1 : 1]));
    }
  }
  return indexes;
}

/** Starts recording a connection's query shapes into `dir` (see `QUERY_SHAPES_DIR_ENV`). */
export function recordQueryShapes(connection: Connection, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `shapes-${process.pid}.jsonl`);
  const written = new Set<string>();
  const write = (entry: QueryShape | IndexDeclaration) => {
    const line = JSON.stringify(entry);
    if (written.has(line)) return;
    written.add(line);
    appendFileSync(file, `${line}\n`);
  };
  connection.getClient().on('commandStarted', (event) => {
    const shape = shapeOf(event.command);
    if (!shape || shape.collection.startsWith('system.')) return;
    // Two services may use one collection name for different things (accounts' users, the projections'
    // users): the model names tell them apart, e.g. `users(ProjectedUser)`.
    const models = Object.values(connection.models)
      .filter((model) => model.collection.collectionName === shape.collection)
      .map((model) => model.modelName)
      .sort();
    const indexes = declaredIndexes(connection, shape.collection);
    if (models.length > 0) shape.collection = `${shape.collection}(${models.join(',')})`;
    write({ kind: 'indexes', collection: shape.collection, indexes });
    // The driver emits the event in the async context of the call, so the request id is still there.
    const origin = currentRequestId() !== undefined ? 'request' : 'other';
    write({ ...shape, origin });
  });
}

/** Reads what every process of a run recorded. */
export function readRecordedShapes(dir: string): { shapes: QueryShape[]; declarations: IndexDeclaration[] } {
  const shapes: QueryShape[] = [];
  const declarations: IndexDeclaration[] = [];
  let files: string[];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return { shapes, declarations };
  }
  for (const name of files) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const entry = JSON.parse(line) as QueryShape | IndexDeclaration;
      if (entry.kind === 'query') shapes.push(entry);
      else declarations.push(entry);
    }
  }
  return { shapes, declarations };
}
