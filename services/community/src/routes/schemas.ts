import {
  absentQueryValue,
  bodyId,
  httpUrl,
  idParams,
  isoTimestampSchema,
  nonBlankText,
  pageQuery,
  pageSchema,
  queryEnum,
  querySize,
  querySort,
  requiredQueryEnum,
  typedText,
  type FieldLabels,
} from '@binzip/shared';
import { z } from 'zod';
import { AllCategories, BoardPrefixes, PreviewPrefixes } from '../domain/vocabulary';
import type { OwnCommentItem } from '../domain/comments';
import { BoardReportActions, BoardReportStatuses, BoardReportTypeNames, MyBoardReportStates } from '../domain/reports';
import type { AdminBoardReportItem, MyBoardReportItem } from '../domain/reports';
import { BoardReportTypes } from '../models';
import type { BoardCategory, BoardDetail, BoardItem, CommentItem, OwnBoardItem } from '../domain/render';

/** Korean names of the request fields: C0002 messages and the API document use them (shared `FieldLabels`). */
export const fieldLabels: FieldLabels = {
  title: '제목',
  code: '본문',
  category: '말머리',
  imageUrls: '이미지 주소',
  prefixCategory: '게시판 종류',
  prefix: '게시판 종류',
  name: '게시판 종류',
  fixed: '고정 여부',
  search: '검색어',
  order: '정렬',
  page: '페이지',
  size: '페이지 크기',
  limit: '개수',
  boardId: '게시글 번호',
  commentId: '댓글 번호',
  id: '번호',
  content: '내용',
  image: '이미지 파일',
  file: '이미지 파일 이름',
  reportType: '신고 유형',
  reportReason: '신고 사유',
  status: '처리 상태',
  sort: '정렬',
  action: '처리',
  note: '처리 메모',
};

/** Limits the spec leaves open (README: Choices). */
export const Limits = {
  title: 100,
  body: 50_000,
  images: 20,
  imageUrl: 2_048,
  comment: 1_000,
  search: 100,
  /** The spec's report reason (listings): 1 to 100 characters, the same for posts. */
  reportReason: 100,
  /** A report decision's note, as for listings (docs/decisions-local.md, issue 40). */
  reportNote: 500,
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
    .array(httpUrl(Limits.imageUrl))
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
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : absentQueryValue(value)),
  typedText(Limits.search)
    .transform((s) => s.trim())
    .optional(),
);

export const listQuery = z.object({
  prefix: requiredQueryEnum(BoardPrefixes),
  category: queryEnum(AllCategories),
  search: searchText.meta({ description: '제목과 본문 글자에서 찾는 글귀 (대소문자 무시)' }),
  order: z.preprocess(absentQueryValue, z.enum(['RECENT', 'POPULAR']).default('RECENT')),
  ...pageQuery(BOARD_PAGE_SIZE),
});

export const previewQuery = z.object({
  prefix: requiredQueryEnum(PreviewPrefixes),
  limit: querySize(PREVIEW_LIMIT, 50),
  category: queryEnum(AllCategories).meta({ description: 'prefix가 INTRO일 때만' }),
});

export const ownListQuery = z.object(pageQuery(OWN_LIST_PAGE_SIZE));

export const categoryQuery = z.object({ name: z.preprocess(absentQueryValue, z.string().max(50)) });

export const commentBody = z.strictObject({
  boardId: bodyId,
  content: nonBlankText(Limits.comment),
});

export const pinBody = z.strictObject({ fixed: z.boolean() });

// Responses (`satisfies` keeps them in step with what the domain returns; ids prefixed with the area)

const boardId = z.number().int().meta({ description: '게시글 id' });
const category = z.enum(AllCategories);
const prefixCategory = z.enum(BoardPrefixes);

export const boardIdData = boardId;
export const commentIdData = z.number().int().meta({ description: '댓글 id' });

export const boardItemSchema = z
  .object({
    boardId,
    title: z.string(),
    code: z.string().meta({ description: '본문 HTML (저장할 때 정화됨)' }),
    oneLineContent: z.string(),
    nickName: z.string(),
    createdAt: isoTimestampSchema,
    imageUrl: z.string().nullable().meta({ description: '첫 이미지, 없으면 null' }),
    commentCount: z.number().int(),
    category,
    prefixCategory,
    fixed: z.boolean(),
  })
  .meta({ id: 'CommunityBoardItem' }) satisfies z.ZodType<BoardItem>;

export const boardPageSchema = pageSchema(boardItemSchema, { totals: true, pageable: false }).meta({ id: 'CommunityBoardPage' });

export const commentItemSchema = z
  .object({
    commentId: z.number().int(),
    nickName: z.string(),
    content: z.string(),
    createdAt: isoTimestampSchema,
  })
  .meta({ id: 'CommunityComment' }) satisfies z.ZodType<CommentItem>;

export const boardDetailSchema = z
  .object({
    boardId,
    title: z.string(),
    code: z.string(),
    nickName: z.string(),
    createdAt: isoTimestampSchema,
    imageUrls: z.array(z.string()),
    loveCount: z.number().int(),
    category,
    prefixCategory,
    commentCount: z.number().int(),
    comments: z.array(commentItemSchema),
  })
  .meta({ id: 'CommunityBoardDetail' }) satisfies z.ZodType<BoardDetail>;

export const boardCategorySchema = z
  .object({
    code: z.string().meta({ description: '한국어 이름' }),
    name: category,
  })
  .meta({ id: 'CommunityBoardCategory' }) satisfies z.ZodType<BoardCategory>;

export const ownBoardItemSchema = z
  .object({
    boardId,
    title: z.string(),
    oneLineContent: z.string(),
    createdAt: isoTimestampSchema,
    imageUrl: z.string().nullable(),
    category,
    prefixCategory,
    commentCnt: z.number().int(),
  })
  .meta({ id: 'CommunityOwnBoardItem' }) satisfies z.ZodType<OwnBoardItem>;

export const ownBoardPageSchema = pageSchema(ownBoardItemSchema, { totals: true, pageable: false }).meta({ id: 'CommunityOwnBoardPage' });

export const ownCommentItemSchema = z
  .object({
    commentId: z.number().int(),
    boardId,
    title: z.string(),
    commentContent: z.string(),
  })
  .meta({ id: 'CommunityOwnCommentItem' }) satisfies z.ZodType<OwnCommentItem>;

export const ownCommentPageSchema = pageSchema(ownCommentItemSchema, { totals: true, pageable: false }).meta({ id: 'CommunityOwnCommentPage' });

// Reports on posts (issue 40): the same shapes as the listing reports of houses.

export const boardReportBody = z.strictObject({
  reportType: z.enum(BoardReportTypes).meta({ description: 'ADVERTISING_BOARD 스팸게시글/광고, ABUSE 욕설/비방, ETC 기타' }),
  reportReason: z.string().trim().min(1).max(Limits.reportReason),
});

export const boardReportListQuery = z.object({
  status: queryEnum(BoardReportStatuses).transform((s) => s ?? 'OPEN'),
  sort: querySort(['lastReportedAt'], { field: 'lastReportedAt', direction: -1 }),
  ...pageQuery(20, 100),
});

/** The optional note goes to the reporters (their list) and into the audit entry; blank counts as none. */
export const boardReportDecisionBody = z.strictObject({
  action: z.enum(BoardReportActions).meta({ description: 'DISMISS 기각 (게시글 유지), REMOVE 게시글 삭제' }),
  note: z
    .string()
    .trim()
    .max(Limits.reportNote)
    .nullish()
    .transform((v) => v || undefined),
});

export const adminBoardReportItemSchema = z
  .object({
    boardId,
    title: z.string(),
    prefixCategory,
    authorId: z.number().int(),
    nickName: z.string(),
    deleted: z.boolean().meta({ description: '신고가 열려 있는 동안 작성자가 삭제한 게시글' }),
    reportCount: z.number().int().min(0),
    lastReportedAt: isoTimestampSchema.nullable(),
    status: z.enum(BoardReportStatuses),
    note: z.string().nullable().meta({ description: '처리된(CLOSED) 신고의 관리자 메모; 없으면 null' }),
    reports: z.array(
      z.object({
        reportType: z.enum(BoardReportTypes),
        reportTypeName: z.enum(Object.values(BoardReportTypeNames) as [string, ...string[]]),
        reportReason: z.string(),
        reporterNickName: z.string(),
        createdAt: isoTimestampSchema,
      }),
    ),
  })
  .meta({ id: 'BoardAdminReportItem' }) satisfies z.ZodType<AdminBoardReportItem>;

export const adminBoardReportPageSchema = pageSchema(adminBoardReportItemSchema, { totals: true, pageable: false }).meta({ id: 'BoardAdminReportPage' });

export const myBoardReportsSchema = z
  .array(
    z
      .object({
        boardId,
        title: z.string(),
        reportType: z.enum(BoardReportTypes),
        reportReason: z.string(),
        state: z.enum(MyBoardReportStates).meta({ description: 'RECEIVED (처리 대기), REMOVED (게시글 삭제), DISMISSED (기각)' }),
        note: z.string().nullable().meta({ description: '관리자의 처리 메모; 없으면 null' }),
        createdAt: isoTimestampSchema,
        decidedAt: isoTimestampSchema.nullable(),
      })
      .meta({ id: 'MyBoardReport' }),
  )
  .meta({ description: '내 게시글 신고, 최근 신고순 (최대 100건)' }) satisfies z.ZodType<MyBoardReportItem[]>;
