/**
 * The one harness every service's tests use: the service's own app (through its `buildApp`) on an isolated
 * database of the run's MongoDB-protocol server, a clock the test moves, a count of outbox kicks, and members
 * and administrators as the service knows them (the `users` projection accounts feeds) with signed tokens.
 */
import {
  applyUserSnapshot,
  createLogger,
  EventBus,
  projectedUserModel,
  ResponseCache,
  serviceContext,
  type AuthClaims,
  type CacheEventSubject,
  type CeilingSettings,
  type ServiceAppDeps,
  type ServiceContext,
  type UserSnapshotV1,
  type UserType,
} from '@binzip/shared';
import type { Express } from 'express';
import type { Connection } from 'mongoose';
import { bearer, connectTestDb, dropTestDb, isolatedNames, testEnv, userSnapshot } from './index';

/** A clock that stands still until the test moves it. */
export interface TestClock {
  now: () => Date;
  advance: (ms: number) => void;
  set: (date: Date) => void;
}

export function testClock(start: Date = new Date()): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (date) => {
      current = date.getTime();
    },
  };
}

/** How a service's tests build it: its models, their indexes, and its app. */
export interface ServiceRecipe<Models, Deps extends ServiceAppDeps = ServiceAppDeps> {
  models: (connection: Connection) => Models;
  initModels: (models: Models) => Promise<void>;
  buildApp: (deps: Deps) => Express;
}

export interface ServiceHarness<Models> {
  app: Express;
  connection: Connection;
  models: Models;
  names: { db: string; natsPrefix: string };
  clock: TestClock;
  /** How often the app kicked the outbox relay. */
  outboxKicks: { count: number };
  /** The context the app's use-cases get (same models, clock and kicks), for calling the domain directly. */
  ctx: ServiceContext<Models>;
  /** The run's NATS under this harness's prefix, connected on first use; `close` deletes its streams. */
  bus(): Promise<EventBus>;
  /** Drops the database; deletes the prefixed streams and closes the bus if one was used. */
  close(): Promise<void>;
}

/**
 * Starts a service's app on a fresh database. `extra` adds the service's own dependencies (senders, keys, a
 * relay); `ceilings` turns the `CEILING_*` counts on (off otherwise); `clockStart` fixes the clock's start (default: now, so real JWT expiry and the clock agree).
 */
export async function startServiceHarness<Models, Deps extends ServiceAppDeps = ServiceAppDeps>(
  label: string,
  recipe: ServiceRecipe<Models, Deps>,
  options: { extra?: Omit<Deps, keyof ServiceAppDeps>; clockStart?: Date; ceilings?: CeilingSettings } = {},
): Promise<ServiceHarness<Models>> {
  const names = isolatedNames(label);
  const connection = await connectTestDb(names.db);
  const models = recipe.models(connection);
  await recipe.initModels(models);
  const clock = testClock(options.clockStart);
  const outboxKicks = { count: 0 };
  const deps = {
    connection,
    logger: createLogger(`${label}-test`, 'silent'),
    publicKey: testEnv().publicKey,
    now: clock.now,
    eventsPending: () => {
      outboxKicks.count += 1;
    },
    ...(options.ceilings ? { ceilings: options.ceilings } : {}),
    ...options.extra,
  } as Deps;
  let bus: Promise<EventBus> | undefined;
  return {
    app: recipe.buildApp(deps),
    connection,
    models,
    names,
    clock,
    outboxKicks,
    ctx: serviceContext(models, deps),
    bus: () => (bus ??= EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: `${label}-test`, logger: deps.logger })),
    close: async () => {
      if (bus) {
        const connected = await bus;
        await connected.deleteStreams();
        await connected.close();
      }
      await dropTestDb(connection);
    },
  };
}

export interface TestPerson {
  id: number;
  nickName: string;
  claims: AuthClaims;
  /** `Authorization` header value. */
  token: string;
}

let nextPersonId = 10_000;
let nextVersion = 1;

/**
 * A user the service knows through its projection, as if accounts had published the snapshot, with a token.
 * `overrides` sets the snapshot's fields (status SUSPENDED, WITHDRAWN, another userType...).
 */
export async function addPerson(
  connection: Connection,
  nickName: string,
  options: { id?: number; userType?: UserType; admin?: boolean; snapshot?: Partial<UserSnapshotV1> } = {},
): Promise<TestPerson> {
  const id = options.id ?? nextPersonId++;
  const userType = options.userType ?? (options.admin ? 'WEB' : 'NONE');
  const authority = options.admin ? 'ADMIN' : 'USER';
  await applyUserSnapshot(projectedUserModel(connection), userSnapshot(id, nickName, { userType, authority, version: nextVersion++, ...options.snapshot }));
  const claims: AuthClaims = { userId: id, userName: `user${id}`, authority, userType };
  return { id, nickName, claims, token: bearer(claims) };
}

/** A general member (authority USER). */
export const addMember = (connection: Connection, nickName: string, options: { id?: number; userType?: Exclude<UserType, 'WEB' | 'SERVER'> } = {}) =>
  addPerson(connection, nickName, { ...options, admin: false });

/** An administrator (authority ADMIN) of the WEB team unless another is given. */
export const addAdmin = (connection: Connection, nickName: string, options: { id?: number; userType?: 'WEB' | 'SERVER' } = {}) =>
  addPerson(connection, nickName, { ...options, admin: true, userType: options.userType ?? 'WEB' });

/** Publishes a newer snapshot of a person (rename, suspension, withdrawal) into the projection. */
export async function updatePerson(connection: Connection, person: TestPerson, snapshot: Partial<UserSnapshotV1>): Promise<void> {
  await applyUserSnapshot(
    projectedUserModel(connection),
    userSnapshot(person.id, snapshot.nick_name ?? person.nickName, {
      userType: person.claims.userType,
      authority: person.claims.authority,
      version: nextVersion++,
      ...snapshot,
    }),
  );
}

/**
 * One more instance of a harness's service, with its own response cache listening on `bus` as main.ts builds it
 * (`events`: the event subjects its main.ts hands `listen`), on the harness's database and clock. Stop the cache
 * when done.
 */
export function cachedInstance<Models>(
  h: ServiceHarness<Models>,
  recipe: Pick<ServiceRecipe<Models>, 'buildApp'>,
  bus: EventBus,
  service: string,
  events: readonly (string | CacheEventSubject)[] = [],
): { app: Express; cache: ResponseCache } {
  const cache = new ResponseCache({ now: () => h.clock.now().getTime() });
  cache.listen(bus, service, events);
  const app = recipe.buildApp({
    connection: h.connection,
    logger: createLogger(`${service}-cache-test`, 'silent'),
    publicKey: testEnv().publicKey,
    now: h.clock.now,
    responseCache: cache,
  });
  return { app, cache };
}
