import { pageQuery, queryBoolean, queryEnum, queryText } from '@binzip/shared';
import { z } from 'zod';
import { DealStates, ReportTypes } from '../models';
import { PublicDealStates, RecommendedTags, RentalTypes } from '../domain/vocabulary';

const trimmedText = (max: number) => z.preprocess((value) => (typeof value === 'string' ? value.trim() : value), queryText(max));

/** `recommendedTag` may repeat (`?recommendedTag=A&recommendedTag=B`) and each value may be a comma list. */
const tagList = z.preprocess(
  (value) => {
    if (value === undefined) return undefined;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
    const cleaned = parts.map((p) => (typeof p === 'string' ? p.trim() : p)).filter((p) => p !== '');
    return cleaned.length === 0 ? undefined : cleaned;
  },
  z.array(z.enum(RecommendedTags)).max(20).optional(),
);

export const publicListQuery = z.object({
  rentalType: queryEnum(RentalTypes),
  city: trimmedText(100),
  search: trimmedText(100),
  recommendedTag: tagList,
  dealState: queryEnum(PublicDealStates),
  ...pageQuery(8),
});

export const ownDraftsQuery = z.object({ ...pageQuery(10) });

export const scrapListQuery = z.object({ filter: queryEnum(DealStates), ...pageQuery(10) });

export const ownListQuery = z.object({ search: trimmedText(100), isCompleted: queryBoolean(), ...pageQuery(10) });

export const waitingListQuery = z.object({ ...pageQuery(10) });

export const reportBody = z.strictObject({
  reportType: z.enum(ReportTypes),
  reportReason: z.string().trim().min(1).max(100),
});

export const decisionBody = z.strictObject({
  approve: z.boolean(),
  reason: z
    .string()
    .trim()
    .max(200)
    .nullish()
    .transform((v) => v ?? undefined),
});
