import { blankToUndefined, bodyId, idParams, nonBlankText, pageQuery, queryEnum, queryInt, requiredQueryEnum } from '@binzip/shared';
import { z } from 'zod';
import { AllCategories, BoardPrefixes, PreviewPrefixes } from '../domain/categories';

/** Limits the spec leaves open (README: Choices). */
export const Limits = {
  title: 100,
  body: 50_000,
  images: 20,
  imageUrl: 2_048,
  comment: 1_000,
  search: 100,
} as const;

export const BOARD_PAGE_SIZE = 8;
export const OWN_LIST_PAGE_SIZE = 10;
export const PREVIEW_LIMIT = 5;

// Requests. Whether a category fits its board type is a rule of the domain, not of these schemas.

export const boardParams = idParams('boardId');
export const commentParams = idParams('commentId');

export const boardBody = z.strictObject({
  title: nonBlankText(Limits.title).transform((s) => s.trim()),
  code: nonBlankText(Limits.body),
  category: z.enum(AllCategories).nullish().meta({ description: '게시판 종류의 분류 또는 EMPTY; null이나 생략은 EMPTY' }),
  imageUrls: z
    .array(z.string().trim().min(1).max(Limits.imageUrl))
    .max(Limits.images)
    .nullish()
    .transform((urls) => urls ?? []),
  prefixCategory: z.enum(BoardPrefixes),
  fixed: z
    .boolean()
    .nullish()
    .transform((fixed) => fixed ?? false)
    .meta({ description: '관리자의 홍보(ADVERTISEMENT) 글만 고정되고, 그 밖에는 무시됩니다' }),
});

export const searchText = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z
    .string()
    .max(Limits.search)
    .transform((s) => s.trim())
    .optional(),
);

export const listQuery = z.object({
  prefix: requiredQueryEnum(BoardPrefixes),
  category: queryEnum(AllCategories),
  search: searchText.meta({ description: '제목과 본문 글자에서 찾는 글귀 (대소문자 무시)' }),
  order: z.preprocess(blankToUndefined, z.enum(['RECENT', 'POPULAR']).default('RECENT')),
  ...pageQuery(BOARD_PAGE_SIZE),
});

export const previewQuery = z.object({
  prefix: requiredQueryEnum(PreviewPrefixes),
  limit: queryInt(PREVIEW_LIMIT, 1, 50),
  category: queryEnum(AllCategories).meta({ description: 'prefix가 INTRO일 때만' }),
});

export const ownListQuery = z.object(pageQuery(OWN_LIST_PAGE_SIZE));

export const categoryQuery = z.object({ name: z.preprocess(blankToUndefined, z.string().max(50)) });

export const commentBody = z.strictObject({
  boardId: bodyId,
  content: nonBlankText(Limits.comment),
});

export const pinBody = z.strictObject({ fixed: z.boolean() });
