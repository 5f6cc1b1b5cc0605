import type { RequestHandler } from 'express';

/** How long a public answer is served from memory, per route (README, "Response cache"). */
export const RESPONSE_CACHE_TTL_MS = {
  /** Board lists, previews, details and comments: a comment or love elsewhere shows within a second. */
  boards: 1_000,
  /** The board-type categories never change while the process runs. */
  categories: 60_000,
  /** House lists and details. */
  houses: 1_000,
  /** Record lists, details and the hot list. */
  records: 1_000,
} as const;

/** A route's cache as the operations see it (`ResponseCache` in the bus layer is the one the services run). */
export interface RouteCache {
  route(tag: string, ttlMs: number): RequestHandler;
}
