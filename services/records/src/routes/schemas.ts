import { bodyId, idParams, monthDayYearSchema, nonBlankText, pageQuery, pageSchema, queryEnum, queryText, type FieldLabels } from '@binzip/shared';
import { z } from 'zod';
import { CATEGORIES, LIMITS, LIST_TYPES, PAGE_SIZES, PARTS, RECORD_TYPES, REVIEW_STATUSES, REVIEWER_STATUSES } from '../domain/vocabulary';
import type { HotRecords, RecordCommentItem, RecordDetail, RecordPage, ReviewDetail, ReviewItem, ReviewerItem } from '../domain/records';
import type { RecordListItem } from '../domain/render';
import type { CategoryTemplate } from '../domain/templates';

/** Korean names of the request fields: C0002 messages and the API document use them (shared `FieldLabels`). */
export const fieldLabels: FieldLabels = {
  title: '제목',
  content: '내용',
  part: '파트',
  type: '유형',
  category: '카테고리',
  recordId: '레코드 번호',
  record_id: '레코드 번호',
  reviewId: '리뷰 번호',
  commentId: '댓글 번호',
  parent_id: '부모 댓글 번호',
  status: '상태',
  template: '템플릿',
  page: '페이지',
  size: '페이지 크기',
  reason: '삭제 사유',
};

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
  category: queryEnum(CATEGORIES).meta({ description: 'type이 all이 아니면 필수이며 type에 맞아야 함; type이 all이면 무시' }),
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
/** Why an administrator deleted someone else's comment (issue 40): kept in the audit entry only; blank counts as none. */
export const deleteCommentQuery = z.object({ reason: queryText(500) });
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

// Responses (`satisfies` keeps them in step with what the domain returns)

export const recordIdData = z.number().int().meta({ description: 'record_id' });
export const reviewIdData = z.number().int().meta({ description: '리뷰 id' });
export const commentIdData = z.number().int().meta({ description: '댓글 id' });

const recordDate = monthDayYearSchema.meta({ description: 'MM.DD.YYYY (한국 시간)' });

export const recordListItemSchema = z
  .object({
    record_id: z.number().int(),
    title: z.string(),
    content: z.string().meta({ description: '본문의 앞 50자' }),
    nick_name: z.string(),
    create_at: recordDate,
    part: z.enum(PARTS),
  })
  .meta({ id: 'RecordListItem' }) satisfies z.ZodType<RecordListItem>;

export const recordPageSchema = z
  .object({ records: pageSchema(recordListItemSchema, { totals: true, pageable: true }) })
  .meta({ id: 'RecordPage' }) satisfies z.ZodType<RecordPage>;

export const hotRecordsSchema = z
  .object({ records: z.array(z.object({ record_id: z.number().int(), title: z.string() })).max(3) })
  .meta({ id: 'RecordHot' }) satisfies z.ZodType<HotRecords>;

export const recordCommentItemSchema = z
  .object({
    comment_id: z.number().int(),
    level: z.number().int().min(1),
    content: z.string(),
    nick_name: z.string(),
    create_at: recordDate,
  })
  .meta({ id: 'RecordCommentItem' }) satisfies z.ZodType<RecordCommentItem>;

export const recordDetailSchema = z
  .object({
    record_id: z.number().int(),
    title: z.string(),
    content: z.string(),
    hits: z.number().int().min(0),
    part: z.enum(PARTS),
    type: z.enum(RECORD_TYPES),
    category: z.enum(CATEGORIES),
    nick_name: z.string(),
    create_at: recordDate,
    comments: pageSchema(recordCommentItemSchema, { totals: true, pageable: true }),
  })
  .meta({ id: 'RecordDetail' }) satisfies z.ZodType<RecordDetail>;

export const recordReviewItemSchema = z
  .object({
    review_id: z.number().int(),
    content: z.string(),
    status: z.enum(REVIEW_STATUSES),
    nick_name: z.string(),
    create_at: recordDate,
  })
  .meta({ id: 'RecordReviewItem' }) satisfies z.ZodType<ReviewItem>;

export const recordReviewerSchema = z
  .object({ status: z.enum(REVIEWER_STATUSES), nick_name: z.string() })
  .meta({ id: 'RecordReviewer' }) satisfies z.ZodType<ReviewerItem>;

export const recordReviewDetailSchema = z
  .object({
    record_id: z.number().int(),
    title: z.string(),
    content: z.string(),
    hits: z.number().int().min(0),
    part: z.enum(PARTS),
    nick_name: z.string(),
    create_at: recordDate,
    reviews: z.array(recordReviewItemSchema),
    reviewers: z.array(recordReviewerSchema),
  })
  .meta({ id: 'RecordReviewDetail' }) satisfies z.ZodType<ReviewDetail>;

export const categoryTemplateSchema = z
  .object({ template: z.string(), category: z.enum(CATEGORIES) })
  .meta({ id: 'RecordCategoryTemplate' }) satisfies z.ZodType<CategoryTemplate>;
