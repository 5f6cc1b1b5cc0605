import type { Request } from 'express';
import { z } from 'zod';
import { AppError } from './wire';

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
