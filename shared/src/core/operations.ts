/**
 * An operation, declared once: method, path, access, the request's schemas (parsed, a refused field answered C0002
 * with its Korean label), the answer's cache policy and the handler; the routes, the API document and the cache
 * headers are derived from it. Beside it, the context its use-cases receive first (`ServiceContext`).
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import { AppError, sendOk } from './wire';
import { requireAdmin, requireUser, type AuthClaims } from './auth';
import { announceDeprecation, type DeprecationNotice } from './deprecation';
import type { Logger } from './telemetry';
import {
  createApiRegistry,
  generateApiDocument,
  type ApiTags,
  registerOperation,
  type ApiDocument,
  type ApiRegistry,
  type OperationAccess,
  type OperationSpec,
} from './openapi';

/**
 * What every use-case in `src/domain/` receives first: `(ctx, caller, input)`. A service extends it when it
 * needs more (accounts adds its keys and senders); nothing else reaches the domain.
 */
export interface ServiceContext<Models> {
  /** The service's models (`<service>Models(connection)`), lower-case keys. */
  models: Models;
  /** The clock; tests move it instead of sleeping. */
  now: () => Date;
  logger: Logger;
  /**
   * Called after a write that stored an outbox event, so the relay publishes it without waiting for its timer;
   * naming the document lets the relay read that one document instead of scanning every outbox collection.
   */
  eventsPending: (written?: WrittenOutboxDocument) => void;
}

/** The document a write just stored with an outbox event: its model and id. */
export interface WrittenOutboxDocument {
  model: { readonly collection: { readonly collectionName: string } };
  id: unknown;
}

/** The optional parts of `ServiceAppDeps` a context is built from, with their production defaults. */
export function serviceContext<Models>(
  models: Models,
  deps: { logger: Logger; now?: () => Date; eventsPending?: (written?: WrittenOutboxDocument) => void },
): ServiceContext<Models> {
  return {
    models,
    logger: deps.logger,
    now: deps.now ?? (() => new Date()),
    eventsPending: deps.eventsPending ?? (() => undefined),
  };
}

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

const HANGUL = /[\u3131-\u318e\uac00-\ud7a3]/;

function fieldName(path: readonly PathKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)), '');
}

/**
 * A service's Korean names of its request fields (`floorNum` -> `층수`): one table per service, next to its
 * schemas. C0002 messages name a field by its label (people read them as they are), the API document shows
 * it as the field's `title`, and the code name goes to the log line.
 */
export type FieldLabels = Readonly<Record<string, string>>;

/** The field a person reads about: the label of the innermost named member, else its code name. */
function fieldLabel(path: readonly PathKey[], labels: FieldLabels): string {
  const named = [...path].reverse().find((key): key is string => typeof key === 'string');
  const label = named !== undefined && Object.hasOwn(labels, named) ? labels[named] : undefined;
  return label ?? fieldName(path);
}

function valueAt(input: unknown, path: readonly PathKey[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * Turns the first zod issue into the Korean C0002 message. A schema that carries a Korean message
 * (the spec's exact format messages) keeps it; anything else names the field.
 */
export function describeIssue(issue: Issue, input: unknown, labels: FieldLabels = {}): string {
  // zod's own enum message lists the options, which may be Korean labels: only schema-given messages pass.
  if (issue.code !== 'invalid_value' && HANGUL.test(issue.message)) return issue.message;
  if (issue.code === 'unrecognized_keys') {
    // A member the API does not have has no label: its own name is what the sender knows it by.
    return `${fieldName([...issue.path, issue.keys[0] ?? ''])} 필드는 허용되지 않습니다.`;
  }
  const field = issue.path.length > 0 ? fieldLabel(issue.path, labels) : '요청 본문';
  // A union (a number or its text) reports a missing member as `invalid_union`, a plain schema as `invalid_type`.
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && valueAt(input, issue.path) === undefined) return `${field} 값이 누락되었습니다.`;
  return `${field} 값이 올바르지 않습니다.`;
}

/**
 * C0002 for one request value; `field` (the code name) is logged with the request id, never sent. A domain rule's
 * refusal carries its `problem` instead of a finished message: the error handler puts the field's Korean label in
 * front (`labelledMessage`), so the domain names fields and never imports the HTTP layer's labels.
 */
export class InvalidFieldError extends AppError {
  constructor(
    message: string,
    readonly field: string,
    readonly problem?: string,
  ) {
    super('C0002', message);
  }
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, labels: FieldLabels = {}): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  throw new InvalidFieldError(describeIssue(issue, input, labels), fieldName(path) || '(body)');
}

/**
 * C0002 for a field a domain rule refuses (a body with nothing left once cleaned, a category that does not
 * fit): the domain names the field by its code name; the error handler names it by its label (the service's
 * `fieldLabels`), like the schema's own messages. `problem` follows the name.
 */
export function invalidField(field: string, problem = '값이 올바르지 않습니다.'): InvalidFieldError {
  return new InvalidFieldError(`${field} ${problem}`, field, problem);
}

/** The answer's message of an `invalidField` refusal: the field's label, then the problem. */
export function labelledMessage(err: InvalidFieldError, labels: FieldLabels): string {
  if (err.problem === undefined) return err.message;
  return `${Object.hasOwn(labels, err.field) ? labels[err.field] : err.field} ${err.problem}`;
}

/** Where `createServiceApp` keeps the service's `FieldLabels` (`app.locals`). */
export const FIELD_LABELS_KEY = 'fieldLabels';
export const labelsOf = (req: Request): FieldLabels => (req.app?.locals as Record<string, FieldLabels | undefined> | undefined)?.[FIELD_LABELS_KEY] ?? {};

export const parseBody = <S extends z.ZodType>(req: Request, schema: S): z.output<S> => parseWith(schema, req.body ?? {}, labelsOf(req));
export const parseQuery = <S extends z.ZodType>(req: Request, schema: S): z.output<S> => parseWith(schema, req.query ?? {}, labelsOf(req));
export const parseParams = <S extends z.ZodType>(req: Request, schema: S): z.output<S> => parseWith(schema, req.params ?? {}, labelsOf(req));

/** Query strings arrive as text; an empty value means "not given". */
export const blankToUndefined = (value: unknown): unknown => (value === '' || value === null ? undefined : value);

/**
 * An optional query value the real clients leave out as empty or as the text `null` (the back office asks
 * `?category=null`): both mean "not given". Every optional query building block below reads values this way.
 */
export const absentQueryValue = (value: unknown): unknown => (value === 'null' ? undefined : blankToUndefined(value));

/** A decimal number written as text, as form inputs send it: digits, one optional point, an optional minus. */
export const DECIMAL_TEXT = /^-?\d{1,15}(\.\d{1,15})?$/;

/**
 * A number in a JSON body, also accepted as text that is exactly a decimal number (`"3000"`, `"45.5"`):
 * the original web client sends what its form inputs hold. `"1e3"`, `" 12"`, `""` and `true` stay refused;
 * the value is a number from here on, so answers and the store keep numbers. The API document shows both
 * accepted forms (`number` or a string with the decimal pattern).
 */
export function formNumber<T extends z.ZodNumber>(number: T) {
  const text = z.string().regex(DECIMAL_TEXT).meta({ description: '숫자를 담은 문자열도 허용 (예: "3000", "45.5")' }).transform(Number).pipe(number);
  return z.union([number, text]);
}

/**
 * A nullable form number: additionally `null`, and `""` (a cleared input) read as null. The domain decides
 * what a null stores.
 */
export function nullableFormNumber<T extends z.ZodNumber>(number: T) {
  const cleared = z
    .literal('')
    .meta({ description: '비운 입력: null로 읽음' })
    .transform(() => null);
  return z.union([formNumber(number), cleared, z.null()]);
}

/** Digit groups joined by single hyphens or spaces, as people type a phone number (`010-1234-5678`, `010 1234 5678`). */
const TYPED_PHONE = /^\d+(?:[- ]\d+)*$/;

/**
 * A phone number as people type it, read as its digits: `010-1234-5678` and `010 1234 5678` are `01012345678`
 * (surrounding blanks ignored). Anything else (letters, other signs, doubled separators, over 20 characters)
 * is passed on unchanged, so the field's own pattern refuses it with its own message.
 */
export const phoneDigits = (value: unknown): unknown => {
  if (typeof value !== 'string' || value.length > 20) return value;
  const text = value.trim();
  return TYPED_PHONE.test(text) ? text.replace(/[- ]/g, '') : value;
};

/**
 * A phone number field that also takes the number as people type it (`phoneDigits`); the schema checks, and
 * the store and answers keep, the digits-only form. The document says which forms are read.
 */
export const typedPhone = <S extends z.ZodType>(digits: S) =>
  z.preprocess(phoneDigits, digits).meta({ description: '숫자만; 하이픈이나 공백으로 나눈 숫자도 허용 (010-1234-5678 → 01012345678)' });

/** Text that must say something: not blank, bounded so huge bodies are refused early. */
export const nonBlankText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0);

/** An id in a JSON body: a positive safe integer, as a number or as its digits in text (`formNumber`). */
export const bodyId = formNumber(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

/**
 * A path or query id: digits only, a positive safe integer. On the wire it is text, so zod sees a string; the
 * document says what a client sends, an integer (`type` in the metadata replaces the inferred schema).
 */
export const idString = z
  .string()
  .regex(/^\d{1,16}$/)
  .transform(Number)
  .refine((n) => n > 0 && Number.isSafeInteger(n))
  .meta({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** `{ id }`-style path parameter schema for one named parameter. */
export function idParams<K extends string>(name: K) {
  return z.object({ [name]: idString } as Record<K, typeof idString>);
}

const QUERY_INTEGER = /^-?\d{1,16}$/;

// Query values are documented by what a client sends (`type` in the metadata), not as zod's nullable
// pre-processed strings.

/** An optional integer query parameter with a default and bounds. */
export function queryInt(defaultValue: number, min: number, max: number, description?: string) {
  return z
    .preprocess(
      (value) => absentQueryValue(value) ?? String(defaultValue),
      z.string().regex(QUERY_INTEGER).transform(Number).pipe(z.number().int().min(min).max(max)),
    )
    .meta({ type: 'integer', minimum: min, maximum: max, default: defaultValue, ...(description ? { description } : {}) });
}

/**
 * A page size or item limit: above `max` it is read as `max` (a client asking for 100 gets the most it may
 * have rather than an error); below 1 or not a whole number it is C0002.
 */
export function querySize(defaultValue: number, max: number) {
  return z
    .preprocess(
      (value) => absentQueryValue(value) ?? String(defaultValue),
      z
        .string()
        .regex(QUERY_INTEGER)
        .transform(Number)
        .pipe(z.number().int().min(1))
        .transform((n) => Math.min(n, max)),
    )
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: max,
      default: defaultValue,
      description: `페이지 크기: 기본 ${defaultValue}, 최대 ${max} (더 큰 값은 ${max}으로 읽음)`,
    });
}

/** C0 control characters and DEL: no search or filter text a person types holds them (a NUL breaks a regex). */
const hasControlCharacter = (text: string): boolean => {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
};

/** Query text as a person types it: bounded, without control characters (those are C0002, never a 500). */
export const typedText = (maxLength: number) =>
  z
    .string()
    .max(maxLength)
    .refine((s) => !hasControlCharacter(s));

const isHttpUrl = (text: string): boolean => {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
};

/** What would end or break out of the attribute (or CSS `url()`) a client writes an address into, unescaped. */
const OUT_OF_ATTRIBUTE = /["'<>`\\\s]/;

/**
 * An absolute `http:`/`https:` URL (a picture's address in `imageUrls`): `javascript:`, `data:` and relative
 * text are C0002, so no stored address can run script in a client that puts it in `src` or `href`; so are quotes,
 * angle brackets, backticks, backslashes and white space, which a URL carries percent-encoded (`%22`, `%3C`, `%20`)
 * and which would let an address written into an attribute unescaped leave it (`"onerror="...`).
 */
export const httpUrl = (maxLength: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(maxLength)
    .refine((text) => isHttpUrl(text) && !OUT_OF_ATTRIBUTE.test(text))
    .meta({ format: 'uri', description: 'http 또는 https 주소' });

/** An optional text query parameter; blank or `null` counts as absent; control characters are C0002. */
export function queryText(maxLength = 200) {
  return z.preprocess(absentQueryValue, typedText(maxLength).optional()).meta({ type: 'string', maxLength });
}

/** An optional enum query parameter; blank or `null` counts as absent. */
export function queryEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(absentQueryValue, z.enum(values).optional()).meta({ type: 'string', enum: [...values] });
}

/** A required enum query parameter; blank or `null` counts as missing. */
export function requiredQueryEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(absentQueryValue, z.enum(values)).meta({ type: 'string', enum: [...values] });
}

/** An optional boolean query parameter (`true`/`false`); blank or `null` counts as absent. */
export function queryBoolean() {
  return z
    .preprocess(
      absentQueryValue,
      z
        .enum(['true', 'false'])
        .transform((v) => v === 'true')
        .optional(),
    )
    .meta({ type: 'boolean' });
}

/** Standard 0-based paging query: `page` (default 0) and `size` (default, and clamped to the maximum). */
export function pageQuery(defaultSize: number, maxSize = 50) {
  return {
    page: queryInt(0, 0, 1_000_000, '페이지 번호, 0부터 시작 (첫 페이지는 0)'),
    size: querySize(defaultSize, maxSize),
  };
}

/** A list's order as a query parameter asks for it: one of the list's sortable fields and a direction. */
export interface SortOrder<F extends string = string> {
  field: F;
  direction: 1 | -1;
}

/**
 * `sort=<field>,<asc|desc>` (Spring's spelling, which the spec's page object comes from; issue 40's sortable
 * administrators' lists): `fields` are what the list can be sorted by (each served by an index), blank or absent
 * is `fallback`; anything else is C0002 naming the parameter. `<field>` alone means ascending.
 */
export function querySort<const F extends readonly [string, ...string[]]>(fields: F, fallback: SortOrder<F[number]>) {
  const pattern = new RegExp(`^(${fields.join('|')})(,(asc|desc))?$`);
  return z
    .preprocess(
      absentQueryValue,
      z
        .string()
        .regex(pattern)
        .optional()
        .transform((value): SortOrder<F[number]> => {
          if (value === undefined) return fallback;
          const [field, direction] = value.split(',');
          return { field, direction: direction === 'desc' ? -1 : 1 };
        }),
    )
    .meta({
      type: 'string',
      pattern: pattern.source,
      description: `정렬: ${fields.join(', ')} 중 하나와 asc 또는 desc (예: ${fields[0]},desc; 기본 ${fallback.field},${fallback.direction === 1 ? 'asc' : 'desc'})`,
    });
}

/**
 * How long a route's answers are kept, chosen by the service that owns the route (next to its cache keys, e.g.
 * services/houses/src/cache-keys.ts): by what the answers depend on. An answer that every change of what it shows
 * forgets at once (the change is a write of the service, announced to its instances, or an event the cache listens
 * to) can live long; `ttlMs` is then only the safety bound on what a change nobody announced costs (a NATS
 * partition between servers, an edit outside the API). An answer that shows something changing unannounced (record
 * views) lives as long as that may lag. While a process cannot hear the announcements (its NATS connection is
 * down), no answer lives longer than `UNHEARD_TTL_MS` (`ResponseCache`).
 */
export interface CacheLifetime {
  /** The answers' name in the cache's keys (`houses`, `boards`): operations of one name share a key space. */
  readonly name: string;
  /** How long an answer is served from memory at most. */
  readonly ttlMs: number;
}

/** The longest an answer lives while its process cannot hear the other instances' changes (NATS away). */
export const UNHEARD_TTL_MS = 1_000;

/**
 * How long a process remembers whether a projected user's writes are refused (`ProjectedUserMemory`, the write guard):
 * it bounds what a lost announcement of a suspension can cost, inside decisions.md's 2 s.
 */
export const PROJECTED_STATUS_MEMORY_MS = 1_000;

/**
 * Names of what cached answers show, chosen by each service (community: `board:12`, `love-order:DEFAULT`): an
 * answer depends on some (an operation's `dependsOn`), a write changes some (its `changes`), and a change forgets
 * exactly the answers that depend on one of its keys. Where nothing is declared the key is "everything": an
 * answer without `dependsOn` is forgotten by every change, a write without `changes` forgets every answer.
 */
export type CacheKeys = readonly string[];

/**
 * Whose answers a route keeps: 'public', the anonymous answers, one per URL for every anonymous caller; 'member',
 * each verified member's own answers (his lists), one per member and URL, never served to anyone else.
 */
export type CacheScope = 'public' | 'member';

/** JSON with every object's members in name order: one text per value, whatever order the request named them in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_name, member: unknown) =>
    member !== null && typeof member === 'object' && !Array.isArray(member) && !(member instanceof Date)
      ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );
}

/**
 * Says which request a route's answer is for: the same text for requests the route answers alike. The operations
 * key on what they declared (their parsed params and query, `canonicalJson`), so parameters a route ignores
 * (`?utm=1`, `?utm=2`, ...) and the order or spelling of those it reads make one answer, not one per URL.
 * `undefined`: the request cannot be told (its input does not parse): answered, never kept.
 */
export type CacheKeyOf = (req: Request) => string | undefined;

/** A route's cache as the operations see it (`ResponseCache` in the bus layer is the one the services run). */
export interface RouteCache {
  /** false: nothing is kept, so `mountOperations` does not evaluate the operations' key declarations. */
  readonly enabled: boolean;
  route(tag: string, ttlMs: number, scope?: CacheScope, keyOf?: CacheKeyOf): RequestHandler;
  /** The answer `res` is about to send depends on these keys only; asked only if the answer is to be kept. */
  answerDependsOn(res: Response, keys: () => CacheKeys): void;
  /** The write `res` answers changed these keys only (`[]`: no answer of the cache); said before it answers. */
  writeChanged(res: Response, keys: CacheKeys, changeId?: string): void;
}

/**
 * Internal answer headers between a service and the gateway in front of it (the gateway strips them before the
 * client sees the answer). `CACHE_OFFER_HEADER` is on an anonymous answer the service's cache keeps and whose every
 * change is announced on `cache.<service>.changed`: the gateway may keep it as the service does, for the lifetime
 * and under the keys it names (`CacheOffer`), forgetting it on the same announcements. `CACHE_CHANGED_HEADER` is on
 * a write's answer: the keys it changed (`{"keys":[...]}`, the announcement's own payload); a successful write
 * without it changed everything of its service.
 */
export const CACHE_OFFER_HEADER = 'x-binzip-cache-offer';
export const CACHE_CHANGED_HEADER = 'x-binzip-cache-changed';

/**
 * Internal headers beside them (issue 42: the gateway kept no answer depending on a key changed less than a second
 * ago, so a list whose boards were commented on every second was never kept there). Every change a cache forgets
 * has an id, heard by every process with it: `CACHE_CHANGE_ID_HEADER` on a write's answer (the id its announcement
 * carries, in the NATS header `CHANGE_ID_NATS_HEADER`). `CACHE_HEARD_HEADER` on an offered answer: a digest of the
 * ids of the changes of its keys the service heard in the last `CHANGES_HEARD_MS` (`heardDigest`). The gateway keeps
 * an answer depending on a key changed within that time only when its own digest is the same: the service had heard
 * every recent change the gateway heard, so the answer, which the service's cache still held, was computed after
 * them.
 */
export const CACHE_CHANGE_ID_HEADER = 'x-binzip-cache-change-id';
export const CACHE_HEARD_HEADER = 'x-binzip-cache-heard';
export const CHANGE_ID_NATS_HEADER = 'Binzip-Cache-Change';
/** How long a change counts as recent: the gateway's settle time (`ANSWERS_SETTLE_MS`), the bound on hearing late. */
export const CHANGES_HEARD_MS = 1_000;

/** A single text header's value, or `undefined`. */
export const readTextHeader = (header: string | string[] | undefined): string | undefined => (typeof header === 'string' && header !== '' ? header : undefined);

/** What an offered answer says of itself: how much longer it may live, and its keys (none: it depends on everything). */
export interface CacheOffer {
  ttlMs: number;
  keys: CacheKeys | undefined;
}

export const offerHeader = (offer: CacheOffer): string => JSON.stringify(offer.keys === undefined ? { ttlMs: offer.ttlMs } : offer);

const isKeys = (keys: unknown): keys is CacheKeys => Array.isArray(keys) && keys.every((key) => typeof key === 'string');

/** An offer header read back; `undefined` for anything that is not one (the answer is then not kept). */
export function readOffer(header: string | string[] | undefined): CacheOffer | undefined {
  if (typeof header !== 'string') return undefined;
  try {
    const { ttlMs, keys } = JSON.parse(header) as { ttlMs?: unknown; keys?: unknown };
    if (typeof ttlMs !== 'number' || !(ttlMs > 0)) return undefined;
    if (keys !== undefined && !isKeys(keys)) return undefined;
    return { ttlMs, keys };
  } catch {
    return undefined;
  }
}

/** A changed header read back: its keys, or `undefined` (everything) for none or anything that is not one. */
export function readChanged(header: string | string[] | undefined): CacheKeys | undefined {
  if (typeof header !== 'string') return undefined;
  try {
    const keys = (JSON.parse(header) as { keys?: unknown } | null)?.keys;
    return isKeys(keys) ? keys : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One declaration per operation: the same entry mounts the Express route with its guard and registers the
 * operation in the service's API document, so the two cannot disagree. A service lists its operations once
 * (`src/routes/index.ts`); `mountOperations` and `operationsDocument` both read that list.
 */

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** `user` and `admin` operations always have a caller; `public` and `optional` ones may not. */
export type CallerOf<A extends OperationAccess> = A extends 'user' | 'admin' ? AuthClaims : AuthClaims | undefined;

/** What a handler gets: the verified caller and the parsed parts of the request. */
export interface OperationCall<A extends OperationAccess, P, Q, B> {
  caller: CallerOf<A>;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  /** For the few operations that read or set headers and cookies themselves. */
  req: Request;
  res: Response;
}

export interface Operation<
  Ctx,
  A extends OperationAccess = OperationAccess,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  D extends z.ZodType | undefined = z.ZodType | undefined,
> extends Omit<OperationSpec, 'access' | 'params' | 'query' | 'body' | 'data' | 'deprecated'> {
  access: A;
  params?: P;
  query?: Q;
  body?: B;
  /** The `data` member on success; omitted when the operation returns none. */
  data?: D;
  /**
   * Korean names of this operation's request fields, over the service's `FieldLabels`, for a name that means
   * different things in different operations (a path segment several operations share in one template).
   */
  labels?: FieldLabels;
  /**
   * Other paths the original clients call for the same answer (Express syntax, e.g. `/api/v1/houses/my`). They
   * are served, not documented: the document names one path per operation.
   */
  aliases?: readonly string[];
  /**
   * Anonymous answers are kept (the app's `ResponseCache`) under this name, for at most its lifetime: the service's
   * own choice (`CacheLifetime`, declared beside its cache keys).
   */
  cached?: CacheLifetime;
  /**
   * With `cached`, on an operation for members (`access` 'user'): each member's own answers are kept instead, apart
   * from everyone else's ('member' `CacheScope`). `dependsOn` must name the member's own key, which every write
   * that changes which items his list holds declares (`commenter:<userId>`, `inbox:<userId>`).
   */
  cachedPerMember?: true;
  /**
   * With `cached`: the keys (`CacheKeys`) the answer depends on, from the parsed input and the answer's data: a
   * write that changes none of them leaves the answer cached. Every key of what the answer shows must be named
   * (each item, and what decides which items and in which order); without it, every change forgets the answer.
   */
  dependsOn?: (call: OperationCall<A, P, Q, B>, data: Parsed<D>) => CacheKeys;
  /**
   * For writes: the keys the write changed, once it succeeded (asked before the answer is sent; the context is for
   * the few that must look up what they touched). `[]`: no cached answer changed; `undefined`, a failure, or no
   * declaration: every answer of the service is forgotten. Only for what the write changes in every answer that
   * shows it: when unsure, leave it out.
   */
  changes?: (call: OperationCall<A, P, Q, B>, data: Parsed<D>, ctx: Ctx) => CacheKeys | undefined | Promise<CacheKeys | undefined>;
  /**
   * With `changes`: the change's own name when an event the caches follow announces the same change again
   * (`CacheEventSubject.changeId`): heard under one id, it is forgotten once, not again when the event arrives.
   */
  changeId?: (call: OperationCall<A, P, Q, B>, data: Parsed<D>) => string;
  /**
   * The ceiling counted before the handler runs, by name (one of the app's `ceilings`, `MountOptions`): what an
   * anonymous script would repeat (sign-ups, sending codes). Over it the answer is 429 C0004 with `Retry-After`.
   */
  ceiling?: string;
  /** Going away: every answer says so (`Deprecation`, `Sunset`, `Link`) and the document marks it. */
  deprecation?: DeprecationNotice;
  /** Whatever it returns becomes `data`; `undefined` means no `data` member. */
  handle: (ctx: Ctx, call: OperationCall<A, P, Q, B>) => unknown;
}

/** An operation of a service whose context is `Ctx`, with its own types erased (the lists hold many). */
export type AnyOperation<Ctx> = Operation<Ctx, OperationAccess, z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined, z.ZodType | undefined>;

/**
 * `const operation = operationsOf<HousesContext>()`, then `operation({...})` per entry: the context type is fixed
 * once, everything else (the caller, the parsed params, query and body) is inferred from the entry itself.
 */
export function operationsOf<Ctx>() {
  return <
    A extends OperationAccess,
    P extends z.ZodObject | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
    D extends z.ZodType | undefined = undefined,
  >(
    operation: Operation<Ctx, A, P, Q, B, D>,
  ): AnyOperation<Ctx> => operation;
}

/** `/api/v1/boards/{boardId}` -> `/api/v1/boards/:boardId`. */
export const expressPath = (templatePath: string): string => templatePath.replace(/\{(\w+)\}/g, ':$1');

const ACCESS_GUARDS: Record<OperationAccess, RequestHandler[]> = {
  public: [],
  optional: [],
  user: [requireUser],
  admin: [requireAdmin],
};

export interface MountOptions {
  /** Where `cached` operations keep their answers; without it they are not cached. */
  responseCache?: RouteCache;
  /** The guards that operations name in `ceiling` (an unknown name fails the mount: a typo must not go uncounted). */
  ceilings?: Readonly<Record<string, RequestHandler>>;
}

/**
 * Mounts every operation on `router`, in the list's order (fixed paths must come before `{param}` paths of the
 * same prefix, as in any Express app): the access guard, the ceiling, the cache, then the handler with parsed input.
 */
export function mountOperations<Ctx>(router: Router, operations: readonly AnyOperation<Ctx>[], ctx: Ctx, options: MountOptions = {}): void {
  for (const operation of operations) {
    checkCacheDeclarations(operation);
    const middleware: RequestHandler[] = [...ACCESS_GUARDS[operation.access]];
    if (operation.deprecation) middleware.push(announceDeprecation(operation.deprecation));
    if (operation.ceiling) middleware.push(ceilingNamed(operation.ceiling, operation.operationId, options));
    // The service's field names with the operation's own on top, merged once per app rather than per request.
    let merged: { service?: FieldLabels; labels: FieldLabels } | undefined;
    const labelsFor = (req: Request): FieldLabels => {
      const service = (req.app.locals as Record<string, FieldLabels | undefined>)[FIELD_LABELS_KEY];
      if (!operation.labels) return service ?? {};
      if (merged && merged.service === service) return merged.labels;
      const labels = { ...service, ...operation.labels };
      merged = { service, labels };
      return labels;
    };
    // The parsed params and query, once per request (the cache's key and the handler read the same).
    const parsedInput = new WeakMap<Request, { params: unknown; query: unknown } | { refused: unknown }>();
    const inputOf = (req: Request): { params: unknown; query: unknown } => {
      let input = parsedInput.get(req);
      if (!input) {
        const labels = labelsFor(req);
        try {
          input = {
            params: operation.params ? parseWith(operation.params, req.params ?? {}, labels) : undefined,
            query: operation.query ? parseWith(operation.query, req.query ?? {}, labels) : undefined,
          };
        } catch (refused) {
          input = { refused };
        }
        parsedInput.set(req, input);
      }
      if ('refused' in input) throw input.refused;
      return input;
    };
    if (operation.cached && options.responseCache) {
      const scope = operation.cachedPerMember ? 'member' : 'public';
      // Answers are told apart by what the operation reads (its parsed params and query, in one canonical text):
      // parameters it ignores (`?utm=...`) or another spelling of the same input never make another answer.
      const keyOf = (req: Request): string | undefined => {
        try {
          const { params, query } = inputOf(req);
          return `${operation.operationId} ${canonicalJson({ params, query })}`;
        } catch {
          return undefined;
        }
      };
      middleware.push(options.responseCache.route(operation.cached.name, operation.cached.ttlMs, scope, keyOf));
    }
    if (operation.params && operation.malformedPathNotFound) middleware.push(notFoundUnlessFits(operation.params));
    const handler: RequestHandler = async (req, res) => {
      const labels = labelsFor(req);
      const { params, query } = inputOf(req);
      const call = {
        caller: req.auth,
        params,
        query,
        // A multipart body is a stream the handler reads itself (uploads); only JSON bodies are parsed here.
        body: operation.body && operation.bodyContentType !== 'multipart/form-data' ? parseWith(operation.body, req.body ?? {}, labels) : undefined,
        req,
        res,
      } as OperationCall<OperationAccess, z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined>;
      const data = await operation.handle(ctx, call);
      const cache = options.responseCache;
      if (cache?.enabled) {
        const { dependsOn, changes } = operation;
        if (dependsOn) cache.answerDependsOn(res, () => dependsOn(call, data));
        if (changes) {
          const keys = await changedKeys(() => changes(call, data, ctx));
          if (keys) cache.writeChanged(res, keys, operation.changeId?.(call, data));
        }
      }
      // A handler that answered itself (a file, a redirect) has nothing left to send.
      if (!res.headersSent) sendOk(res, data);
    };
    // One route per path, so `req.route.path` is the one template the request matched (the metrics' route label).
    for (const path of [expressPath(operation.path), ...(operation.aliases ?? [])]) router[operation.method](path, ...middleware, handler);
  }
}

/** Key declarations that could never apply are a mistake in the list: the mount fails, as for an unknown ceiling. */
function checkCacheDeclarations(operation: AnyOperation<never>): void {
  if (operation.dependsOn && !operation.cached) throw new Error(`${operation.operationId} declares dependsOn without cached`);
  if (operation.changes && operation.method === 'get') throw new Error(`${operation.operationId} is a read that declares changes`);
  // A members' operation keeps nothing as a public route (every request carries a token), and a public one has
  // no verified member to keep answers for.
  const forMembers = operation.access === 'user' || operation.access === 'admin';
  if (operation.cachedPerMember && !(operation.cached && forMembers))
    throw new Error(`${operation.operationId} is cached per member without cached or without member access`);
  if (operation.cached && forMembers && !operation.cachedPerMember) throw new Error(`${operation.operationId} is a members' operation cached as a public one`);
}

/** A write's changed keys; a declaration that fails leaves them unknown (everything is forgotten, which is always safe). */
async function changedKeys(changes: () => CacheKeys | undefined | Promise<CacheKeys | undefined>): Promise<CacheKeys | undefined> {
  try {
    return await changes();
  } catch {
    return undefined;
  }
}

function ceilingNamed(name: string, operationId: string, options: MountOptions): RequestHandler {
  const guard = options.ceilings?.[name];
  if (!guard) throw new Error(`${operationId} is counted by the ceiling '${name}', which the app does not provide`);
  return guard;
}

/** 404 C0001 for a path whose parameters do not fit `params` (`malformedPathNotFound`): it names nothing. */
function notFoundUnlessFits(params: z.ZodObject): RequestHandler {
  return (req, _res, next) => {
    if (!params.safeParse(req.params).success) throw AppError.notFound();
    next();
  };
}

/**
 * Drops the Authorization header of requests to the operations that declare `ignoresAuthorization`, before the
 * service runtime verifies it (mount it in `createServiceApp`'s `before`).
 */
export function ignoreAuthorizationOn(operations: readonly AnyOperation<never>[]): RequestHandler {
  // Express routes case-insensitively and ignores a trailing slash; match the same way.
  const key = (method: string, path: string) => `${method.toLowerCase()} ${path.toLowerCase().replace(/\/+$/, '')}`;
  const ignored = new Set(operations.filter((op) => op.ignoresAuthorization).map((op) => key(op.method, op.path)));
  return (req, _res, next) => {
    if (ignored.size > 0 && ignored.has(key(req.method, req.path))) delete req.headers.authorization;
    next();
  };
}

/** Adds every operation to `registry` (for lists that share a document with operations declared elsewhere). */
export function registerOperations(registry: ApiRegistry, operations: readonly AnyOperation<unknown>[]): void {
  for (const operation of operations) {
    const {
      aliases: _aliases,
      cached: _cached,
      cachedPerMember: _cachedPerMember,
      dependsOn: _dependsOn,
      changes: _changes,
      changeId: _changeId,
      handle: _handle,
      deprecation,
      ceiling,
      ...spec
    } = operation;
    registerOperation(registry, {
      ...spec,
      ...(deprecation ? { deprecated: true } : {}),
      // The ceiling's refusal is the operation's answer too, whatever the method.
      ...(ceiling ? { errors: [...(spec.errors ?? []), 'C0004'] } : {}),
    });
  }
}

/**
 * The service's API document, from its operation list (served at `/openapi.json`, merged by the gateway); `tags`
 * describes the tags its operations use (the service's `apiTags`).
 */
export function operationsDocument(
  operations: readonly AnyOperation<never>[],
  { tags = {}, ...info }: { title: string; version: string; description?: string; tags?: ApiTags },
  labels: FieldLabels = {},
  extra?: (registry: ApiRegistry) => void,
): ApiDocument {
  const registry = createApiRegistry();
  extra?.(registry);
  registerOperations(registry, operations as readonly AnyOperation<unknown>[]);
  return generateApiDocument(registry, info, labels, tags);
}
