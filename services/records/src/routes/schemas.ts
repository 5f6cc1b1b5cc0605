import { bodyId, idParams, nonBlankText, pageQuery, queryEnum } from '@binzip/shared';
import { z } from 'zod';
import { CATEGORIES, LIMITS, LIST_TYPES, PAGE_SIZES, PARTS, RECORD_TYPES, REVIEW_STATUSES, REVIEWER_STATUSES } from '../domain/catalog';

// Requests: records

export const recordIdParams = idParams('recordId');

export const createRecordBody = z.strictObject({
  title: nonBlankText(LIMITS.title),
  content: nonBlankText(LIMITS.content),
  part: z.enum(PARTS),
  category: z.enum(CATEGORIES),
  type: z.enum(RECORD_TYPES),
});

/** Type and category are fixed at creation: only the texts change. */
export const updateRecordBody = z.strictObject({ title: nonBlankText(LIMITS.title), content: nonBlankText(LIMITS.content) });

export const recordListParams = z.object({ part: z.enum(PARTS), type: z.enum(LIST_TYPES) });
export const recordListQuery = z.object({
  category: queryEnum(CATEGORIES).meta({ description: 'type이 all이 아니면 필수이며 type에 맞아야 함' }),
  ...pageQuery(PAGE_SIZES.list, PAGE_SIZES.max),
});

/** Reviewee: the record's outcome; reviewer: the caller's own verdict. Absent: all. */
export const myRecordsQuery = z.object({ status: queryEnum(REVIEWER_STATUSES), ...pageQuery(PAGE_SIZES.mine, PAGE_SIZES.max) });

/** The comment page of the record detail. */
export const recordDetailQuery = z.object(pageQuery(PAGE_SIZES.comments, PAGE_SIZES.max));

// Requests: reviews

export const reviewIdParams = idParams('reviewId');
export const createReviewBody = z.strictObject({ record_id: bodyId, content: nonBlankText(LIMITS.reviewContent), status: z.enum(REVIEW_STATUSES) });
export const updateReviewBody = z.strictObject({ content: nonBlankText(LIMITS.reviewContent), status: z.enum(REVIEW_STATUSES) });

// Requests: comments

export const commentIdParams = idParams('commentId');
export const createCommentBody = z.strictObject({
  record_id: bodyId,
  // A top-level comment sends null; leaving the member out means the same.
  parent_id: bodyId
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  content: nonBlankText(LIMITS.commentContent),
});
export const updateCommentBody = z.strictObject({ content: nonBlankText(LIMITS.commentContent) });

// Requests: templates

export const saveTemplateBody = z.strictObject({ template: z.string().max(LIMITS.template), category: z.enum(CATEGORIES) });
export const templateParams = z.object({ category: z.enum(CATEGORIES) });
