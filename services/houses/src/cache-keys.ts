import type { CacheKeys } from '@binzip/shared';

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
