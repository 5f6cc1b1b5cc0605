import { defineEvent, defineStream, type EventData } from '@binzip/shared';
import { z } from 'zod';

/** The events houses publishes, as its consumers read them, and the stream that keeps them. */

/** Every event houses publishes; consumed within seconds, kept a bounded time and size for a consumer catching up. */
export const housesStream = defineStream({ name: 'HOUSES', subjects: ['houses.>'], purpose: 'events' });

/** `houses.report.created`: a member reported a listing; accounts keeps the author's latest report time and count. */
export const houseReportCreated = defineEvent({
  subject: 'houses.report.created',
  stream: housesStream,
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    /** The listing's author: the member the report is against. */
    authorId: z.number().int().positive(),
    reporterId: z.number().int().positive(),
    reportType: z.string(),
    occurredAt: z.string(),
  }),
});
export type HouseReportCreatedV1 = EventData<typeof houseReportCreated>;

/**
 * `houses.listing.published`: a listing became public (an agent's or administrator's save, an approval, a draft
 * saved by either): notifications matches it against the members' saved searches (issue 38). Published once per
 * change from not listed to listed, never for an edit of a listing that stays listed; the point is the one known
 * at that moment (null while the geocoder has not found it).
 */
export const houseListingPublished = defineEvent({
  subject: 'houses.listing.published',
  stream: housesStream,
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    authorId: z.number().int().positive(),
    title: z.string(),
    rentalType: z.string(),
    dealState: z.string(),
    houseType: z.string().nullable(),
    recommendedTag: z.array(z.string()),
    price: z.number(),
    /** The current province-level name and the county the listing's `city` names (houses' `regionOf`). */
    province: z.string().nullable(),
    county: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    occurredAt: z.string(),
  }),
});
export type HouseListingPublishedV1 = EventData<typeof houseListingPublished>;

/** `houses.listing.decided`: an administrator approved or rejected a waiting listing; notifications tells its author. */
export const houseListingDecided = defineEvent({
  subject: 'houses.listing.decided',
  stream: housesStream,
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    authorId: z.number().int().positive(),
    title: z.string(),
    approved: z.boolean(),
    /** The administrator's reason for a rejection; null on an approval. */
    reason: z.string().nullable(),
    occurredAt: z.string(),
  }),
});
export type HouseListingDecidedV1 = EventData<typeof houseListingDecided>;

/**
 * `houses.listing.changed`: a listing's price or deal state changed; notifications tells the members who had
 * scrapped it (their ids as houses knew them at the write, at most 10,000).
 */
export const houseListingChanged = defineEvent({
  subject: 'houses.listing.changed',
  stream: housesStream,
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    authorId: z.number().int().positive(),
    title: z.string(),
    price: z.number(),
    dealState: z.string(),
    previousPrice: z.number(),
    previousDealState: z.string().nullable(),
    scrapperIds: z.array(z.number().int().positive()).max(10_000),
    occurredAt: z.string(),
  }),
});
export type HouseListingChangedV1 = EventData<typeof houseListingChanged>;
