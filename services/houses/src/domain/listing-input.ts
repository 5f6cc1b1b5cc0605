import { AppError, invalidField, sanitizeBody } from '@binzip/shared';
import type { ListingContent } from '../models';
import type { GeoPoint } from './places';

/** The spec's limit on the body (`code`) of a saved listing, in characters (code points). */
export const MAX_CODE_LENGTH = 10_000;

export type { ListingContent };

/**
 * A create/update body as routes/schemas.ts lets it through: a draft's fields may be absent or null, a saved
 * listing's are all present and well-formed (the shape checks, C0002 naming the field, live in the schema).
 */
export type ListingBody = { tmpYn: boolean } & { [K in keyof ListingContent]?: ListingContent[K] | null } & {
  /** The point, both or neither (issue 39); the schema checks each lies in Korea's bounds. */
  latitude?: number | null;
  longitude?: number | null;
};

/** What is stored: the mode and the content with blanks filled in and the body cleaned. */
export interface ListingInput {
  tmpYn: boolean;
  content: ListingContent;
  /** The point the client gave, or null (the server finds it from the address). */
  point: GeoPoint | null;
}

const dedupe = (values: readonly string[] | null | undefined): string[] => [...new Set(values ?? [])];

/**
 * The rules a listing body obeys beyond its shape: H0000 counts what the client sent; what is stored is the
 * body with the markup outside the allowlist removed, and a saved body must say something once cleaned.
 * Drafts are served back to their author's editor, so they are cleaned too; their blanks become empty text,
 * 0 or [].
 */
export function listingInput(body: ListingBody): ListingInput {
  let code = body.code ?? '';
  if (!body.tmpYn) {
    if ([...code].length > MAX_CODE_LENGTH) throw new AppError('H0000');
    code = sanitizeBody(code);
    if (code.trim() === '') throw invalidField('code');
  } else {
    code = sanitizeBody(code);
  }
  const latitude = body.latitude ?? null;
  const longitude = body.longitude ?? null;
  if ((latitude === null) !== (longitude === null))
    throw invalidField(latitude === null ? 'latitude' : 'longitude', '값이 누락되었습니다. 위도와 경도는 함께 보내야 합니다.');
  return {
    tmpYn: body.tmpYn,
    point: latitude !== null && longitude !== null ? { latitude, longitude } : null,
    content: {
      rentalType: body.rentalType ?? '',
      city: body.city ?? '',
      detail: body.detail ?? '',
      zipCode: body.zipCode ?? '',
      size: body.size ?? '',
      purpose: body.purpose ?? '',
      floorNum: body.floorNum ?? 0,
      contact: body.contact ?? '',
      createdDate: body.createdDate ?? '',
      price: body.price ?? 0,
      monthlyPrice: body.monthlyPrice ?? 0,
      agentName: body.agentName ?? null,
      title: body.title ?? '',
      code,
      imageUrls: body.imageUrls ?? [],
      recommendedTag: dedupe(body.recommendedTag),
      // Absent keeps what an edit finds (a client that does not know the field leaves it alone); null or
      // blank clears it.
      ...(body.houseType !== undefined ? { houseType: body.houseType || null } : {}),
      ...(body.agentDetail !== undefined ? { agentDetail: body.agentDetail?.trim() || null } : {}),
    },
  };
}
