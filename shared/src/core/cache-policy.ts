import type { Request, RequestHandler, Response } from 'express';

/** How long a public answer is served from memory, per route (README, "Response cache"). */
export const RESPONSE_CACHE_TTL_MS = {
  /** Board lists, previews, details and comments: a comment or love elsewhere shows within a second. */
  boards: 1_000,
  /** The board-type categories never change while the process runs. */
  categories: 60_000,
  /** House lists and details. */
  houses: 1_000,
  /** Houses' counts by region: forgotten by every listing write, so only the TTL bounds an edit elsewhere's delay. */
  houseRegions: 60_000,
  /** Record lists, details and the hot list. */
  records: 1_000,
  /** A member's notification list (kept per member): a notification stored for him forgets it at once. */
  notifications: 1_000,
} as const;

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
  writeChanged(res: Response, keys: CacheKeys): void;
}
