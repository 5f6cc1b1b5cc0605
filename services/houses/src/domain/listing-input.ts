import { AppError, parseWith, sanitizeBody } from '@binzip/shared';
import { z } from 'zod';
import type { ListingContent } from '../models/house';
import { startsWithProvince } from './regions';
import { RecommendedTags, RentalTypes } from './vocabulary';

/** The spec's limit on the body (`code`) of a saved listing, in characters (code points). */
export const MAX_CODE_LENGTH = 10_000;
/** Drafts are not validated, but are still bounded: room to trim a long body before saving it. */
export const MAX_DRAFT_CODE_LENGTH = 20_000;
export const MAX_IMAGES = 20;
const MAX_URL = 2_048;
const MAX_PRICE = 100_000_000;
const MAX_MONTHLY_PRICE = 10_000_000;

export type { ListingContent };

export interface ListingInput {
  tmpYn: boolean;
  content: ListingContent;
}

const dedupe = (values: string[] | null | undefined): string[] => [...new Set(values ?? [])];

// Drafts: types are checked and sizes bounded; blank or null values become empty text / 0 / [].
const draftText = (max: number) => z.string().max(max).nullish();
const draftNumber = (max: number) => z.preprocess((value) => (value === '' ? null : value), z.number().finite().min(0).max(max).nullish());

const draftSchema = z.strictObject({
  tmpYn: z.literal(true),
  rentalType: z.union([z.literal(''), z.enum(RentalTypes)]).nullish(),
  city: draftText(200),
  detail: draftText(200),
  zipCode: draftText(20),
  size: draftText(20),
  purpose: draftText(100),
  floorNum: z.preprocess((value) => (value === '' ? null : value), z.number().int().min(-20).max(300).nullish()),
  contact: draftText(20),
  createdDate: draftText(10),
  price: draftNumber(MAX_PRICE),
  monthlyPrice: draftNumber(MAX_MONTHLY_PRICE),
  agentName: draftText(50),
  title: draftText(100),
  code: draftText(MAX_DRAFT_CODE_LENGTH),
  imageUrls: z.array(z.string().max(MAX_URL)).max(MAX_IMAGES).nullish(),
  recommendedTag: z.array(z.enum(RecommendedTags)).max(10).nullish(),
});

const required = (max: number) => z.string().trim().min(1).max(max);
const pattern = (regex: RegExp) => z.string().trim().regex(regex);

// Saved listings: every required field present and well-formed; the first failing field is named.
const savedSchema = z.strictObject({
  tmpYn: z.literal(false),
  rentalType: z.enum(RentalTypes),
  city: required(200).refine(startsWithProvince),
  detail: required(200),
  zipCode: pattern(/^\d{5,6}$/),
  size: pattern(/^\d{1,7}(\.\d{1,2})?$/),
  purpose: required(100),
  floorNum: z.number().int().min(-20).max(300).nullable(),
  contact: pattern(/^\d{9,11}$/),
  createdDate: pattern(/^\d{4}$/),
  price: z.number().finite().min(0).max(MAX_PRICE),
  monthlyPrice: z.number().finite().min(0).max(MAX_MONTHLY_PRICE),
  agentName: z.string().trim().max(50).nullish(),
  title: required(100),
  // Bounded far above the limit only so a huge value is refused cheaply; the limit itself is H0000.
  code: z.string().trim().min(1).max(1_000_000),
  imageUrls: z.array(z.string().trim().min(1).max(MAX_URL)).max(MAX_IMAGES),
  recommendedTag: z.array(z.enum(RecommendedTags)).max(10).nullish(),
});

const modeSchema = z.looseObject({ tmpYn: z.boolean() });

/** Parses a create/update body: drafts loosely, saves strictly (C0002 naming the field, H0000 for the body). */
export function parseListingInput(body: unknown): ListingInput {
  const { tmpYn } = parseWith(modeSchema, body);
  if (tmpYn) {
    const draft = parseWith(draftSchema, body);
    return {
      tmpYn: true,
      content: {
        rentalType: draft.rentalType ?? '',
        city: draft.city ?? '',
        detail: draft.detail ?? '',
        zipCode: draft.zipCode ?? '',
        size: draft.size ?? '',
        purpose: draft.purpose ?? '',
        floorNum: draft.floorNum ?? 0,
        contact: draft.contact ?? '',
        createdDate: draft.createdDate ?? '',
        price: draft.price ?? 0,
        monthlyPrice: draft.monthlyPrice ?? 0,
        agentName: draft.agentName ?? null,
        title: draft.title ?? '',
        // Drafts are served back to their author's editor: cleaned like saved bodies.
        code: sanitizeBody(draft.code ?? ''),
        imageUrls: draft.imageUrls ?? [],
        recommendedTag: dedupe(draft.recommendedTag),
      },
    };
  }
  const saved = parseWith(savedSchema, body);
  // H0000 counts what the client sent; what is stored is the body with the markup outside the allowlist removed.
  if ([...saved.code].length > MAX_CODE_LENGTH) throw new AppError('H0000');
  const code = sanitizeBody(saved.code);
  if (code.trim() === '') throw AppError.invalid('code 값이 올바르지 않습니다.');
  return {
    tmpYn: false,
    content: {
      rentalType: saved.rentalType,
      city: saved.city,
      detail: saved.detail,
      zipCode: saved.zipCode,
      size: saved.size,
      purpose: saved.purpose,
      floorNum: saved.floorNum ?? 0,
      contact: saved.contact,
      createdDate: saved.createdDate,
      price: saved.price,
      monthlyPrice: saved.monthlyPrice,
      agentName: saved.agentName ?? null,
      title: saved.title,
      code,
      imageUrls: saved.imageUrls,
      recommendedTag: dedupe(saved.recommendedTag),
    },
  };
}
