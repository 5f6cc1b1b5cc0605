import type { Express, RequestHandler } from 'express';
import type { Connection } from 'mongoose';
import type { EventConsumer } from '../bus/events';
import type { OutboxDeclaration } from '../bus/outbox';
import { ResponseCache, type CacheEventSubject } from '../bus/response-cache';
import { projectedSuspension } from '../bus/members';
import type { CacheLifetime, ServiceContext } from '../core/operations';
import type { ApiDocument } from '../core/openapi';
import { mountOperations, type AnyOperation, type MountOptions } from '../core/operations';
import type { SuspensionLookup } from '../core/auth';
import type { FieldLabels } from '../core/operations';
import type { CeilingSettings } from '../store/mongo';
import { createServiceApp, type ServiceAppDeps } from './http';
import type { BaseServiceConfig, ServiceDefinition, ServiceParts, ServiceRuntime } from './service';

/** The settings the runtime reads for every declared service (`serviceConfigShape` has them all). */
export type DeclaredServiceConfig = BaseServiceConfig &
  CeilingSettings & {
    JWT_PUBLIC_KEY: string;
    TRUST_PROXY?: string | boolean | number;
    RESPONSE_CACHE_MAX_BYTES: number;
    RESPONSE_CACHE_MAX_MEMBER_BYTES: number;
  };

/** What a service's start-up tasks hand back beyond nothing: things to close, accounts' feed. */
export type StartupParts = Pick<ServiceParts, 'closers' | 'revocationFeed' | 'internal'>;

/**
 * A service, declared once (issue 36): everything `runService` and the test kit need, in one `src/service.ts`.
 * `runService(service)` builds the models, ONE context, the response cache, the app, the outbox relay and the
 * consumers from it; `serviceApp(service, deps)` builds the same app for tests from their own deps.
 */
export interface ServiceDeclaration<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps = ServiceAppDeps> {
  name: string;
  readConfig: () => C;
  /** Keep the local projection of accounts' users (every service but accounts itself). */
  userProjection: boolean;
  /**
   * The cached answers that show projected users (nickname, user type: board answers, house answers): what they
   * show of a user is remembered as long as they live, while the announcements that forget both can be heard
   * (`ProjectedUserMemory`). Without it, as long as the write guard's status (`PROJECTED_STATUS_MEMORY_MS`).
   */
  namesShownBy?: CacheLifetime;
  models: (connection: Connection) => M;
  initModels: (models: M) => Promise<void>;
  /**
   * What the context needs beyond `ServiceAppDeps`, read from the config and the runtime (production; tests give
   * their own).
   */
  deps?: (config: C, runtime: ServiceRuntime<C>) => Omit<D, keyof ServiceAppDeps>;
  /** The one context of the process: requests, consumers and start-up tasks all get it. */
  context: (models: M, deps: D) => X;
  operations: readonly AnyOperation<X>[];
  apiDocument: () => ApiDocument;
  /** Korean names of the request fields (C0002 messages; the error handler labels the domain's `invalidField`). */
  fieldLabels: FieldLabels;
  /** Middleware before the JSON parser (accounts' cookies). */
  before?: RequestHandler[];
  /** Routes that are not operations, mounted before them (notifications' live stream). */
  routes?: (app: Express, ctx: X, deps: D) => void;
  /** Where a suspension is looked up; the user projection by default. */
  isSuspended?: (ctx: X, deps: D) => SuspensionLookup;
  /** The guards operations name in `ceiling`. */
  ceilings?: (deps: D) => MountOptions['ceilings'];
  /** The events its writes store (`addOutbox` documents); one relay publishes them. */
  outbox?: (models: M) => OutboxDeclaration;
  /** The events it consumes (`consume(event, { durable, handle, changes })`). */
  consumes?: (ctx: X, config: C, deps: D) => readonly EventConsumer[];
  /**
   * Given, public answers are cached: forgotten on the service's own writes (every instance) and on these event
   * subjects (a plain subject forgets everything, a `CacheEventSubject` the keys it names).
   */
  cache?: { events: readonly (string | CacheEventSubject)[] };
  /** Start-up tasks, before anything is served (sanitising stored data, sweepers, timers); may return closers. */
  startup?: (ctx: X, runtime: ServiceRuntime<C>, deps: D) => Promise<StartupParts | void>;
}

/** A declared service, as `runService` takes it: the declaration and the runtime's definition made from it. */
export type DeclaredService<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps = ServiceAppDeps> = ServiceDeclaration<
  C,
  M,
  X,
  D
> & { definition: () => ServiceDefinition<C> };

/** `export const service = defineService({...})` in each service's `src/service.ts`; `main.ts` is `runService(service)`. */
export function defineService<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps = ServiceAppDeps>(
  declaration: ServiceDeclaration<C, M, X, D>,
): DeclaredService<C, M, X, D> {
  return { ...declaration, definition: () => declaredDefinition(declaration) };
}

/** The service's app over a context already built (runService: the process's one context). */
export function appWithContext<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps>(
  service: ServiceDeclaration<C, M, X, D>,
  ctx: X,
  deps: D,
): Express {
  const cache = deps.responseCache ?? new ResponseCache({ enabled: false });
  const ceilings = service.ceilings?.(deps);
  return createServiceApp({
    service: service.name,
    fieldLabels: service.fieldLabels,
    logger: deps.logger,
    publicKey: deps.publicKey,
    trustProxy: deps.trustProxy,
    ceilings: deps.ceilings,
    connection: deps.connection,
    before: service.before,
    isSuspended: service.isSuspended ? service.isSuspended(ctx, deps) : projectedSuspension(deps.connection),
    apiDocument: service.apiDocument,
    responseCache: cache,
    routes: (app) => {
      service.routes?.(app, ctx, deps);
      mountOperations(app, service.operations, ctx, { responseCache: cache, ...(ceilings ? { ceilings } : {}) });
    },
  });
}

/** The service's context from deps (the test kit, and anything that builds an app without `runService`). */
export function contextOf<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps>(
  service: ServiceDeclaration<C, M, X, D>,
  deps: D,
): X {
  return service.context(service.models(deps.connection), deps);
}

/** The service's app from deps: what each service's `buildApp` was (the test kit builds apps with it). */
export function serviceApp<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps>(
  service: ServiceDeclaration<C, M, X, D>,
  deps: D,
): Express {
  return appWithContext(service, contextOf(service, deps), deps);
}

/**
 * The runtime's definition of a declared service: models (indexes first), the one context, the start-up tasks,
 * the response cache, the app, the outbox and the consumers, in that order.
 */
export function declaredDefinition<C extends DeclaredServiceConfig, M, X extends ServiceContext<M>, D extends ServiceAppDeps>(
  service: ServiceDeclaration<C, M, X, D>,
): ServiceDefinition<C> {
  return {
    name: service.name,
    readConfig: service.readConfig,
    userProjection: service.userProjection,
    ...(service.namesShownBy ? { namesShownBy: service.namesShownBy } : {}),
    start: async (runtime) => {
      const { config, logger, connection, bus, eventsPending } = runtime;
      const models = service.models(connection);
      await service.initModels(models);
      let responseCache: ResponseCache | undefined;
      if (service.cache) {
        responseCache = new ResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES, maxMemberBytes: config.RESPONSE_CACHE_MAX_MEMBER_BYTES });
        responseCache.listen(bus, service.name, service.cache.events);
      }
      const deps = {
        connection,
        logger,
        publicKey: config.JWT_PUBLIC_KEY,
        trustProxy: config.TRUST_PROXY,
        ceilings: config,
        eventsPending,
        ...(responseCache ? { responseCache } : {}),
        ...service.deps?.(config, runtime),
      } as D;
      const ctx = service.context(models, deps);
      const started = (await service.startup?.(ctx, runtime, deps)) ?? {};
      return {
        ...started,
        app: appWithContext(service, ctx, deps),
        outbox: service.outbox?.(models),
        consumers: service.consumes?.(ctx, config, deps),
        responseCache,
      };
    },
  };
}
