import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ErrorCodes, GatewayFaults, type ErrorCode } from './wire';
import { SUCCESS_MESSAGE } from './wire';
import type { PageObject } from './wire';

/**
 * The API document is generated from the same declarations that mount the routes and validate requests: every
 * service lists its operations once (`operationsOf`, operations.ts), `operationsDocument` registers them here,
 * the service serves the result at `/openapi.json`, and the gateway merges the five into one (`mergeApiDocuments`).
 */

export type ApiRegistry = OpenAPIRegistry;
/** The generated document (OpenAPI 3.1), kept loosely typed: it is JSON that crosses process boundaries. */
export type ApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const BEARER_SCHEME = 'bearerAuth';
const REFRESH_COOKIE_SCHEME = 'refreshTokenCookie';

export function createApiRegistry(): ApiRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The access token from sign-in or reissue: `Authorization: Bearer <jwt>` (ES256, 30 minutes).',
  });
  registry.registerComponent('securitySchemes', REFRESH_COOKIE_SCHEME, {
    type: 'apiKey',
    in: 'cookie',
    name: 'RefreshToken',
    description: 'The opaque refresh token set by sign-in (HttpOnly, Secure, SameSite=None, 7 days), rotated by reissue.',
  });
  return registry;
}

/** `{code: 'SUCCESS', message: '성공', data}`; without a data schema the member is absent. */
function successEnvelopeSchema(data?: z.ZodType) {
  const base = { code: z.literal('SUCCESS'), message: z.literal(SUCCESS_MESSAGE) };
  return data ? z.object({ ...base, data }) : z.object(base);
}

/** An error envelope whose code is one of `codes`; error envelopes never carry `data`. */
function errorEnvelopeSchema(codes: readonly [string, ...string[]]) {
  return z.object({ code: z.enum(codes), message: z.string().min(1) });
}

const sortInfoSchema = z.object({ empty: z.boolean(), unsorted: z.boolean(), sorted: z.boolean() }).meta({ id: 'SortInfo' });
const pageableSchema = z
  .object({
    sort: sortInfoSchema,
    offset: z.number().int(),
    pageSize: z.number().int(),
    pageNumber: z.number().int(),
    paged: z.boolean(),
    unpaged: z.boolean(),
  })
  .meta({ id: 'Pageable' });

/**
 * The spec's page object around `item`. `totals`: `totalElements`/`totalPages` present (board, house, record and
 * admin lists) or absent (notifications); `pageable`: present in the lists the spec names.
 */
export function pageSchema<T extends z.ZodType>(item: T, options: { totals: boolean; pageable: boolean }): z.ZodType<PageObject<z.output<T>>> {
  const shape: Record<string, z.ZodType> = {
    content: z.array(item),
    last: z.boolean(),
    size: z.number().int(),
    number: z.number().int(),
    sort: sortInfoSchema,
    first: z.boolean(),
    numberOfElements: z.number().int(),
    empty: z.boolean(),
  };
  if (options.pageable) shape.pageable = pageableSchema;
  if (options.totals) Object.assign(shape, { totalElements: z.number().int().min(0), totalPages: z.number().int().min(0) });
  // The shape varies with the options, which TypeScript cannot follow; the result is the spec's page object.
  return z.object(shape) as unknown as z.ZodType<PageObject<z.output<T>>>;
}

/** ISO 8601 with offset and milliseconds (`toIsoOffset`). */
export const isoTimestampSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
/** `MM.DD.YYYY` (`toMonthDayYear`). */
export const monthDayYearSchema = z.string().regex(/^\d{2}\.\d{2}\.\d{4}$/);

/** Who may call an operation: it decides the security requirement and the auth errors it can answer. */
export type OperationAccess = 'public' | 'optional' | 'user' | 'admin';

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  /** OpenAPI path template, e.g. `/api/v1/boards/{boardId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: OperationAccess;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** How `body` is sent: JSON (default) or a multipart form (uploads). */
  bodyContentType?: 'application/json' | 'multipart/form-data';
  /** The `data` member on success; omitted when the operation returns none. */
  data?: z.ZodType;
  /** Every error code the operation itself can answer (auth and 500 are added from `access`). */
  errors?: readonly ErrorCode[];
  /** Set-Cookie and similar headers of the success answer. */
  successHeaders?: ResponseConfig['headers'];
  /** Operations that also read the refresh-token cookie (reissue, logout). */
  refreshCookie?: boolean;
  /**
   * The operation never reads the Authorization header (reissue: clients still send the expired token there, the
   * one that matters is in the body), so no token or token-guard code applies. `ignoreAuthorizationOn` drops it.
   */
  ignoresAuthorization?: boolean;
  /** Going away: the route announces it with `announceDeprecation` (Deprecation and Sunset headers). */
  deprecated?: boolean;
  /**
   * Path parameters that do not fit `params` name nothing: 404 C0001, not 400 C0002 (files named by their
   * content, where a malformed name is as absent as an unknown one).
   */
  malformedPathNotFound?: boolean;
  /**
   * The success answers of an operation that answers without the JSON envelope (a file and its 304), in place of
   * the envelope's 200; its errors are still envelopes.
   */
  successResponses?: RouteConfig['responses'];
}

/** Who may call, in every operation's description (the security requirement says the same for machines). */
const ACCESS_DESCRIPTIONS: Record<OperationAccess, string> = {
  public: '인증 없음: 누구나 호출할 수 있다.',
  optional: '인증 선택: 토큰 없이도 답하고, 보낸 토큰은 검사한다 (잘못된 토큰은 401). 로그인 회원에게는 회원별 값이 더해진다.',
  user: '로그인 회원: `Authorization` 헤더에 로그인이 준 `access_token` 값을 그대로 (`Bearer ...`).',
  admin: '관리자: `Authorization` 헤더에 관리자 로그인의 `access_token` (회원 토큰은 403 J0006).',
};
const REFRESH_COOKIE_ACCESS = '`RefreshToken` 쿠키 (로그인이 HttpOnly로 설정)를 읽는다: 브라우저는 `credentials: include`로 보낸다.';

/**
 * The tags a service's operations use, each with a description (lint rules and readers want one): the service's
 * own, declared beside its operations (`apiTags` in its `src/routes/index.ts`). An operation tagged with a name
 * missing there still works; the API lint test names it.
 */
export type ApiTags = Readonly<Record<string, string>>;

/** The position of each tag in the merged document: `order`'s, then the rest as the documents came. */
const tagRank = (order: readonly string[], name: string) => (order.includes(name) ? order.indexOf(name) : order.length);

const AUTH_ERRORS: Record<OperationAccess, ErrorCode[]> = {
  // A token that is sent is checked even where none is needed (a stale header from a signed-out client answers 401).
  public: ['J0001', 'J0002', 'J0004'],
  optional: ['J0001', 'J0002', 'J0004'],
  user: ['J0000', 'J0001', 'J0002', 'J0004'],
  admin: ['J0000', 'J0001', 'J0002', 'J0004', 'J0006'],
};

/** Every 429 (a ceiling, a sign-in lock, a write that kept losing its race) says when to try again. */
const RETRY_AFTER: ResponseConfig['headers'] = {
  'Retry-After': { description: 'seconds until a retry can succeed', schema: { type: 'integer', minimum: 1 } },
};

/** Registers one operation with its success envelope and one error response per HTTP status it can answer. */
export function registerOperation(registry: ApiRegistry, spec: OperationSpec): void {
  const codes = new Set<ErrorCode>([...(spec.ignoresAuthorization ? [] : AUTH_ERRORS[spec.access]), ...(spec.errors ?? []), 'C0000']);
  // Every write that carries a member's token passes two guards of the service runtime, whatever the operation:
  // the suspension guard (U0012; a withdrawn account's token is J0004) and the per-member write ceiling
  // (`CEILING_MEMBER_WRITES`, C0004). They run before the operation's own access check, so an administrators'
  // operation called with a suspended member's token answers U0012. The guards own these codes, not the operations.
  if (spec.method !== 'get' && !spec.ignoresAuthorization) {
    codes.add('U0012');
    codes.add('C0004');
    codes.add('J0004');
  }
  // Every request can be malformed (bad JSON, bad ids, unknown fields).
  if (spec.body || spec.query || (spec.params && !spec.malformedPathNotFound)) codes.add('C0002');
  if (spec.params && spec.malformedPathNotFound) codes.add('C0001');
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = ErrorCodes[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: RouteConfig['responses'] = {
    ...(spec.successResponses ?? {
      200: {
        description: '성공',
        headers: spec.successHeaders,
        content: { 'application/json': { schema: successEnvelopeSchema(spec.data) } },
      },
    }),
  };
  for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: list.map((code) => `${code}: ${ErrorCodes[code as ErrorCode].message}`).join(' / '),
      ...(status === 429 ? { headers: RETRY_AFTER } : {}),
      content: { 'application/json': { schema: errorEnvelopeSchema(list as [string, ...string[]]) } },
    };
  }
  // Public operations say so with `security: []` (an absent requirement would mean "as the document's default").
  const security: RouteConfig['security'] = [];
  if (spec.access === 'user' || spec.access === 'admin') security.push({ [BEARER_SCHEME]: [] });
  if (spec.access === 'optional') security.push({}, { [BEARER_SCHEME]: [] });
  if (spec.refreshCookie) security.push({ [REFRESH_COOKIE_SCHEME]: [] });
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: [spec.description, spec.refreshCookie ? REFRESH_COOKIE_ACCESS : ACCESS_DESCRIPTIONS[spec.access]].filter(Boolean).join('\n\n'),
    tags: spec.tags,
    ...(spec.deprecated ? { deprecated: true } : {}),
    security,
    request: {
      params: spec.params,
      query: spec.query,
      body: spec.body ? { required: true, content: { [spec.bodyContentType ?? 'application/json']: { schema: spec.body } } } : undefined,
    },
    responses,
  });
}

/**
 * The document of one service. `labels` (the service's `FieldLabels`) become the `title` of every request
 * member and parameter they name, so the document shows the Korean name a C0002 message uses; `tagDescriptions`
 * (the service's `ApiTags`) describe the tags its operations use.
 */
export function generateApiDocument(
  registry: ApiRegistry,
  info: { title: string; version: string; description?: string },
  labels: Readonly<Record<string, string>> = {},
  tagDescriptions: ApiTags = {},
): ApiDocument {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info });
  dropUnmappableDiscriminators(document);
  labelRequestFields(document, labels);
  const used = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { tags?: string[] }>)) for (const tag of operation.tags ?? []) used.add(tag);
  }
  const tags = [...used].map((name) => (Object.hasOwn(tagDescriptions, name) ? { name, description: tagDescriptions[name] } : { name }));
  return { ...document, ...(tags.length > 0 ? { tags } : {}) };
}

/**
 * zod-to-openapi writes a `discriminator` for every discriminated union, but OpenAPI's mapping keys are strings:
 * on a boolean (`tmpYn`) the mapping comes out empty and generators then type the property as the schema names.
 * A plain `oneOf` of branches that each carry their literal is exact, so an empty mapping is removed.
 */
function dropUnmappableDiscriminators(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropUnmappableDiscriminators(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as JsonObject;
  const discriminator = object.discriminator as { mapping?: JsonObject } | undefined;
  if (discriminator && Object.keys(discriminator.mapping ?? {}).length === 0) delete object.discriminator;
  for (const value of Object.values(object)) dropUnmappableDiscriminators(value);
}

type JsonNode = Record<string, unknown>;
const isNode = (value: unknown): value is JsonNode => typeof value === 'object' && value !== null;

/** Titles on request members (bodies, following their `$ref`s) and parameters; answers are left alone. */
function labelRequestFields(document: ApiDocument, labels: Readonly<Record<string, string>>): void {
  const components = ((document.components as JsonNode | undefined)?.schemas ?? {}) as Record<string, unknown>;
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (!isNode(node) || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') visit(components[node.$ref.split('/').pop() ?? '']);
    if (isNode(node.properties)) {
      for (const [name, member] of Object.entries(node.properties)) {
        if (isNode(member) && Object.hasOwn(labels, name) && member.title === undefined) member.title = labels[name];
      }
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach(visit);
      else visit(value);
    }
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as JsonNode)) {
      if (!isNode(operation)) continue;
      for (const parameter of (operation.parameters ?? []) as JsonNode[]) {
        const name = String(parameter.name);
        if (Object.hasOwn(labels, name) && isNode(parameter.schema)) parameter.schema.title ??= labels[name];
      }
      visit(operation.requestBody);
    }
  }
}

type JsonObject = Record<string, unknown>;

/**
 * One document from the services' documents. Paths are disjoint (each prefix has one owner); a component
 * two services define differently is a mistake and is refused rather than silently overwritten.
 * The gateway's own faults (413, 502, 503, 504) are added to every proxied operation. `tagOrder` is the order the
 * merged document presents the tags in (the gateway's choice; a tag it does not list comes last).
 */
export function mergeApiDocuments(
  documents: ApiDocument[],
  info: { title: string; version: string; description?: string },
  servers?: Array<{ url: string; description?: string }>,
  tagOrder: readonly string[] = [],
): ApiDocument {
  const paths: JsonObject = {};
  const components: Record<string, JsonObject> = {};
  const tags = new Map<string, JsonObject>();
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (paths[path]) throw new Error(`API documents overlap at ${path}`);
      paths[path] = withGatewayFaults(item as JsonObject);
    }
    for (const [kind, entries] of Object.entries((doc.components ?? {}) as Record<string, JsonObject>)) {
      const target = (components[kind] ??= {});
      for (const [name, value] of Object.entries(entries)) {
        if (target[name] !== undefined && JSON.stringify(target[name]) !== JSON.stringify(value)) {
          throw new Error(`API documents define components.${kind}.${name} differently`);
        }
        target[name] = value;
      }
    }
    for (const tag of (doc.tags ?? []) as JsonObject[]) tags.set(String(tag.name), tag);
  }
  return {
    openapi: '3.1.0',
    info,
    ...(servers ? { servers } : {}),
    // In `tagOrder`, whatever order the services' documents came in.
    ...(tags.size > 0 ? { tags: [...tags.values()].sort((a, b) => tagRank(tagOrder, String(a.name)) - tagRank(tagOrder, String(b.name))) } : {}),
    paths,
    components,
  } as ApiDocument;
}

// The gateway's 502 (an upstream that broke the HTTP protocol) carries the 503's message, as the proxy sends it;
// its description keeps naming the cause.
const BAD_GATEWAY = { code: 'C0000', message: GatewayFaults.unavailable.message, description: '잘못된 업스트림 응답' };

const GATEWAY_FAULT_RESPONSES: Array<[number, { code: string; message: string; description?: string }]> = [
  [GatewayFaults.tooLarge.status, GatewayFaults.tooLarge],
  [502, BAD_GATEWAY],
  [GatewayFaults.unavailable.status, GatewayFaults.unavailable],
  [GatewayFaults.timeout.status, GatewayFaults.timeout],
];

/** What the gateway answers about a body itself: sent too slowly (408), or one address sending too many at once (429). */
const GATEWAY_BODY_FAULT_RESPONSES: Array<[number, { code: string; message: string; description?: string }]> = [
  [GatewayFaults.bodyTimeout.status, GatewayFaults.bodyTimeout],
  [ErrorCodes.C0004.status, { code: 'C0004', message: ErrorCodes.C0004.message }],
];

function envelopeExample(code: string, message: string): JsonObject {
  return { [code]: { summary: `${code}: ${message}`, value: { code, message } } };
}

/**
 * A 500 is never recorded (no correct request provokes one, contracts/examples/exemptions.yaml): its example is
 * the envelope every service's error handler sends, instead of a sample Swagger UI would make up (`"string"`).
 */
function withInternalErrorExample(responses: JsonObject): void {
  const media = ((responses['500'] as JsonObject | undefined)?.content as Record<string, JsonObject> | undefined)?.['application/json'];
  if (media && media.example === undefined && media.examples === undefined) media.examples = envelopeExample('C0000', ErrorCodes.C0000.message);
}

function withGatewayFaults(item: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [method, operation] of Object.entries(item)) {
    const op = operation as JsonObject;
    const responses = { ...(op.responses as JsonObject) };
    const faults = op.requestBody ? [...GATEWAY_FAULT_RESPONSES, ...GATEWAY_BODY_FAULT_RESPONSES] : GATEWAY_FAULT_RESPONSES;
    for (const [status, fault] of faults) {
      responses[String(status)] ??= {
        description: `gateway: ${fault.description ?? fault.message}`,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { code: { type: 'string', enum: [fault.code] }, message: { type: 'string' } },
              required: ['code', 'message'],
            },
            // The envelope the gateway really sends (a recorded example, where there is one, replaces it).
            examples: envelopeExample(fault.code, fault.message),
          },
        },
      };
    }
    withInternalErrorExample(responses);
    result[method] = { ...op, responses };
  }
  return result;
}
