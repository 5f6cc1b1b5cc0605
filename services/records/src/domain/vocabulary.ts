/** The record area's vocabularies, as the spec names them. */
export const PARTS = ['web', 'server', 'infra', 'all'] as const;
export type Part = (typeof PARTS)[number];

/** Types a record can have; `all` exists only as a list filter. */
export const RECORD_TYPES = ['odori', 'retro', 'tech'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const LIST_TYPES = [...RECORD_TYPES, 'all'] as const;
export type ListType = (typeof LIST_TYPES)[number];

export const CATEGORIES = ['culture', 'retrospection', 'disaster', 'issue', 'new_tech', 'architecture'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CATEGORIES_BY_TYPE: Record<RecordType, readonly Category[]> = {
  odori: ['culture'],
  retro: ['retrospection'],
  tech: ['disaster', 'issue', 'new_tech', 'architecture'],
};

export function categoryFitsType(type: RecordType, category: Category): boolean {
  return CATEGORIES_BY_TYPE[type].includes(category);
}

/** What a reviewer has said so far about a record. */
export const REVIEWER_STATUSES = ['wait', 'approve', 'reject'] as const;
export type ReviewerStatus = (typeof REVIEWER_STATUSES)[number];

/** A review's own status; `mine` is the author answering. */
export const REVIEW_STATUSES = ['approve', 'reject', 'mine'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const DELETED_COMMENT_TEXT = '삭제된 댓글입니다.';

export const LIMITS = {
  title: 100,
  content: 50_000,
  reviewContent: 5_000,
  commentContent: 1_000,
  template: 20_000,
  listExcerpt: 50,
} as const;

export const PAGE_SIZES = { list: 4, comments: 10, mine: 3, max: 50 } as const;

export const DAY_MS = 24 * 60 * 60 * 1000;
export const HOT_WINDOW_MS = 7 * DAY_MS;
export const HOT_COUNT = 3;
