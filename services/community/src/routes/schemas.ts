import { blankToUndefined, queryInt, requiredQueryEnum } from '@binzip/shared';
import { z } from 'zod';
import { AllCategories, BoardPrefixes, categoryFits, EMPTY_CATEGORY, PreviewPrefixes } from '../domain/categories';

/** Limits the spec leaves open (README: Choices). */
export const Limits = {
  title: 100,
  body: 50_000,
  images: 20,
  imageUrl: 2_048,
  comment: 1_000,
  search: 100,
} as const;

export { requiredQueryEnum };

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0);

export const boardBody = z
  .strictObject({
    title: nonBlank(Limits.title).transform((s) => s.trim()),
    code: nonBlank(Limits.body),
    category: z.enum(AllCategories).nullish(),
    imageUrls: z
      .array(z.string().trim().min(1).max(Limits.imageUrl))
      .max(Limits.images)
      .nullish()
      .transform((urls) => urls ?? []),
    prefixCategory: z.enum(BoardPrefixes),
    fixed: z
      .boolean()
      .nullish()
      .transform((fixed) => fixed ?? false),
  })
  .transform((body) => ({ ...body, category: body.category ?? EMPTY_CATEGORY }))
  .superRefine((body, ctx) => {
    if (!categoryFits(body.category, [body.prefixCategory])) {
      ctx.addIssue({ code: 'custom', path: ['category'], message: 'category 값이 게시판 종류에 맞지 않습니다.' });
    }
  });

export const previewQuery = z.object({
  prefix: requiredQueryEnum(PreviewPrefixes),
  limit: queryInt(5, 1, 50),
  category: z.preprocess(blankToUndefined, z.enum(AllCategories).optional()),
});

export const searchText = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z
    .string()
    .max(Limits.search)
    .transform((s) => s.trim())
    .optional(),
);

export const commentBody = z.strictObject({
  boardId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  content: nonBlank(Limits.comment),
});
