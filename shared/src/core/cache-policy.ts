import type { Request, RequestHandler, Response } from 'express';

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
 * How long a process remembers a projected user's nickname (`NickNameMemory`): like an answer's TTL, it bounds
 * what a lost announcement of a rename can cost.
 */
export const NICKNAME_MEMORY_MS = 1_000;

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
