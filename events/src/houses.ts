import { defineEvent, defineStream, type EventData } from '@binzip/shared';
import { z } from 'zod';

/** The events houses publishes, as its consumers read them, and the stream that keeps them. */

/*
 * The words houses' listings are described with, which its listing events carry (`rentalType`, `houseType`,
 * `dealState`, `recommendedTag`, `province`) and a consumer may match against (notifications' saved searches). Said
 * here once, for houses (which validates and stores them) and for its consumers; the events' schemas keep plain
 * strings, so a word houses adds later reaches consumers that do not know it yet (they refuse to save a search
 * naming it until they are rebuilt with it, never match it silently).
 */

export const RentalTypes = ['SALE', 'JEONSE', 'MONTHLYRENT'] as const;

/**
 * What kind of property a listing is (the original site's 2024-08-18 change "농가거래"): 토지, 주택, 농가.
 * Optional: listings saved before it, and by clients that do not send it, have none.
 */
export const HouseTypes = ['LAND', 'HOUSE', 'FARM_HOUSE'] as const;

/** The deal states a public listing can be in (the spec's public-list `dealState` filter). */
export const PublicDealStates = ['ONGOING', 'COMPLETED'] as const;

export const RecommendedTags = [
  'WANT_TO_INTERIOR_FOR_THE_FIRST_TIME',
  'WANT_TO_READY_HOUSE',
  'HAVE_CHILDREN',
  'WANT_TO_LOOK_A_GOOD_VIEW',
  'WANT_TO_FARM',
] as const;

/** Older province names a listing's address may still begin with, and the current name each one is counted under. */
export const FormerProvinceNames: Readonly<Record<string, string>> = { 강원도: '강원특별자치도', 전라북도: '전북특별자치도' };

/** The current province-level names in full: what a listing event carries as `province`. */
export const CurrentProvinces = [
  '서울특별시',
  '부산광역시',
  '대구광역시',
  '인천광역시',
  '광주광역시',
  '대전광역시',
  '울산광역시',
  '세종특별자치시',
  '경기도',
  '강원특별자치도',
  '충청북도',
  '충청남도',
  '전북특별자치도',
  '전라남도',
  '경상북도',
  '경상남도',
  '제주특별자치도',
] as const;

/** Region words of the city filter (decisions.md) and the current province names each one stands for. */
export const RegionWords: Readonly<Record<string, readonly (typeof CurrentProvinces)[number][]>> = {
  수도권: ['서울특별시', '인천광역시', '경기도'],
  경상: ['부산광역시', '대구광역시', '울산광역시', '경상북도', '경상남도'],
  전라: ['광주광역시', '전북특별자치도', '전라남도'],
  충청: ['대전광역시', '세종특별자치시', '충청북도', '충청남도'],
  제주: ['제주특별자치도'],
  강원: ['강원특별자치도'],
};

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
