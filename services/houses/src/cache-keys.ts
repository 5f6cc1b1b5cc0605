import type { CacheKeys, CacheLifetime } from '@binzip/shared';

/**
 * What houses' cached answers show, as the response cache's keys (docs/decisions-local.md, "Response cache"):
 *
 * - `scraps:<userId>`: one member's scraps. They show in his own answers only: as `isScraped` in his detail
 *   (never kept) and in his scrap list, kept per member; scrapping and unscrapping change that key alone. The
 *   list shows listings too, so every listing write (which declares nothing) forgets it like every other answer.
 * - The public lists and details have no key of their own (`WHAT_EVERY_LISTING_WRITE_CHANGES`): every houses
 *   write but a scrap (listings, deals, reports, pictures) declares nothing and so forgets every answer,
 *   nicknames too; a scrap changes none of them. A listing write that declares keys one day must give these
 *   answers keys as well.
 */
export const scrapsKey = (userId: number): string => `scraps:${userId}`;

export const WHAT_EVERY_LISTING_WRITE_CHANGES: CacheKeys = [];

/**
 * How long houses' answers are kept (`CacheLifetime`). Lists, details and the places (map, near, clusters, nearby)
 * and a member's scrap list show listings, their points and authors' nicknames, and each of those changes only
 * where a change is announced: every houses write (every instance forgets what it declared, everything for a
 * listing write), the geocoding job once it stored a point (service.ts), the user projection once it stored a
 * nickname. Nothing in them changes with time alone. So they are kept until such a change forgets them, and 10 s at
 * most: what the original site kept every list page for, without forgetting; it bounds only what nobody announced
 * (a partition between NATS servers, an edit outside the API).
 */
export const HOUSE_ANSWERS: CacheLifetime = { name: 'houses', ttlMs: 10_000 };

/** Counts by region: the same dependencies as the lists; a minute at most, as before. */
export const HOUSE_REGION_COUNTS: CacheLifetime = { name: 'houseRegions', ttlMs: 60_000 };
