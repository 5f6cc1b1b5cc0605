import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { requireAdmin, requireUser, type AuthClaims } from './auth';
import { announceDeprecation, type DeprecationNotice } from './deprecation';
import { sendOk } from './wire';
import { AppError } from './wire';
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
import { canonicalJson, type CacheKeys, type CacheLifetime, type RouteCache } from './cache-policy';
import { FIELD_LABELS_KEY, parseWith, type FieldLabels } from './validation';

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
