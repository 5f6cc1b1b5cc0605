import {
  AppError,
  buildPage,
  invalidField,
  isAdmin,
  nextId,
  pageWindow,
  toMonthDayYear,
  type AuthClaims,
  type PageObject,
  type PageRequest,
} from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { CommentDoc, RecordDoc, ReviewDoc } from '../models';
import {
  HOT_COUNT,
  HOT_WINDOW_MS,
  categoryFitsType,
  type Category,
  type ListType,
  type Part,
  type RecordType,
  type ReviewStatus,
  type ReviewerStatus,
} from './vocabulary';
import type { RecordsContext } from './context';
import { countView, viewerKey } from './hits';
import { nickNames, renderListItems, type RecordListItem } from './render';
import { APPROVED, liveRecord } from './access';

export interface NewRecord {
  title: string;
  content: string;
  part: Part;
  type: RecordType;
  category: Category;
}

/** A page of records as every record list answers it. */
export interface RecordPage {
  records: PageObject<RecordListItem>;
}

export interface HotRecords {
  records: Array<{ record_id: number; title: string }>;
}

export interface RecordCommentItem {
  comment_id: number;
  level: number;
  content: string;
  nick_name: string;
  create_at: string;
}

export interface RecordDetail {
  record_id: number;
  title: string;
  content: string;
  hits: number;
  part: Part;
  type: RecordType;
  category: Category;
  nick_name: string;
  create_at: string;
  comments: PageObject<RecordCommentItem>;
}

export interface ReviewItem {
  review_id: number;
  content: string;
  status: ReviewStatus;
  nick_name: string;
  create_at: string;
}

export interface ReviewerItem {
  status: ReviewerStatus;
  nick_name: string;
}

/** The review view: the record without type and category, with its reviews and reviewers. */
export interface ReviewDetail {
  record_id: number;
  title: string;
  content: string;
  hits: number;
  part: Part;
  nick_name: string;
  create_at: string;
  reviews: ReviewItem[];
  reviewers: ReviewerItem[];
}

/**
 * Creates a record in review. The reviewers are the author's team: every other active administrator of the
 * same userType, as the accounts projection knows them now. A record nobody can review is approved at once.
 */
export async function createRecord(ctx: RecordsContext, author: AuthClaims, input: NewRecord): Promise<number> {
  if (!categoryFitsType(input.type, input.category)) throw invalidField('category', '값이 유형과 맞지 않습니다.');
  const team = await ctx.models.users
    .find({ authority: 'ADMIN', userType: author.userType, status: 'ACTIVE', _id: { $ne: author.userId } }, { _id: 1 })
    .sort({ _id: 1 })
    .lean()
    .exec();
  const now = ctx.now();
  const id = await nextId(ctx.models.records.db, 'record');
  await ctx.models.records.create({
    _id: id,
    ...input,
    authorId: author.userId,
    reviewers: team.map((u) => ({ userId: u._id, status: 'wait' })),
    notApproved: team.length,
    rejected: 0,
    hits: 0,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
  return id;
}

async function ownRecord(ctx: RecordsContext, caller: AuthClaims, recordId: number): Promise<RecordDoc> {
  const record = await liveRecord(ctx, recordId);
  if (record.authorId !== caller.userId) throw AppError.forbidden();
  return record;
}

export async function updateRecord(ctx: RecordsContext, caller: AuthClaims, input: { recordId: number; title: string; content: string }): Promise<number> {
  const { recordId } = input;
  await ownRecord(ctx, caller, recordId);
  const result = await ctx.models.records
    .updateOne({ _id: recordId, deletedAt: null }, { $set: { title: input.title, content: input.content, updatedAt: ctx.now() } })
    .exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  return recordId;
}

/** Soft delete: the record, its reviews and comments vanish from every read. */
export async function deleteRecord(ctx: RecordsContext, caller: AuthClaims, input: { recordId: number }): Promise<void> {
  await ownRecord(ctx, caller, input.recordId);
  const result = await ctx.models.records.updateOne({ _id: input.recordId, deletedAt: null }, { $set: { deletedAt: ctx.now() } }).exec();
  if (result.matchedCount === 0) throw AppError.notFound();
}

const HOT_SORT = { hits: -1, createdAt: -1, _id: -1 } as const;

/** Up to three approved records of the last 7 days by hits (newest first on ties), filled with older ones. */
export async function hotRecords(ctx: RecordsContext): Promise<HotRecords> {
  const since = new Date(ctx.now().getTime() - HOT_WINDOW_MS);
  const project = { _id: 1, title: 1 };
  const recent = await ctx.models.records
    .find({ ...APPROVED, createdAt: { $gte: since } }, project)
    .sort(HOT_SORT)
    .limit(HOT_COUNT)
    .lean()
    .exec();
  const older =
    recent.length < HOT_COUNT
      ? await ctx.models.records
          .find({ ...APPROVED, createdAt: { $lt: since } }, project)
          .sort(HOT_SORT)
          .limit(HOT_COUNT - recent.length)
          .lean()
          .exec()
      : [];
  return { records: [...recent, ...older].map((r) => ({ record_id: r._id, title: r.title })) };
}

const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

async function recordPage(ctx: RecordsContext, filter: FilterQuery<RecordDoc>, request: PageRequest): Promise<RecordPage> {
  const { skip, limit } = pageWindow(request);
  const [records, total] = await Promise.all([
    ctx.models.records.find(filter).sort(NEWEST_FIRST).skip(skip).limit(limit).lean<RecordDoc[]>().exec(),
    ctx.models.records.countDocuments(filter).exec(),
  ]);
  const items = await renderListItems(ctx, records);
  return { records: buildPage(items, request, total, { withPageable: true }) };
}

/** Public list: approved records; `all` as part or type means no filter on it (for type `all`, a category too). */
export async function listRecords(ctx: RecordsContext, query: { part: Part; type: ListType; category?: Category } & PageRequest): Promise<RecordPage> {
  const filter: FilterQuery<RecordDoc> = { ...APPROVED };
  if (query.part !== 'all') filter.part = query.part;
  if (query.type !== 'all') {
    if (query.category === undefined) throw invalidField('category', '값이 누락되었습니다.');
    if (!categoryFitsType(query.type, query.category)) throw invalidField('category', '값이 유형과 맞지 않습니다.');
    filter.type = query.type;
    filter.category = query.category;
  }
  return recordPage(ctx, filter, query);
}

/** The caller's own records in a review state (any state when none is given). */
export async function revieweeRecords(ctx: RecordsContext, caller: AuthClaims, query: { status?: ReviewerStatus } & PageRequest): Promise<RecordPage> {
  const filter: FilterQuery<RecordDoc> = { authorId: caller.userId, deletedAt: null };
  if (query.status === 'approve') filter.notApproved = 0;
  if (query.status === 'reject') filter.rejected = { $gt: 0 };
  if (query.status === 'wait') Object.assign(filter, { notApproved: { $gt: 0 }, rejected: 0 });
  return recordPage(ctx, filter, query);
}

/** Records the caller reviews, by the caller's own verdict (`wait` = not reviewed yet). */
export async function reviewerRecords(ctx: RecordsContext, caller: AuthClaims, query: { status?: ReviewerStatus } & PageRequest): Promise<RecordPage> {
  const filter: FilterQuery<RecordDoc> = {
    deletedAt: null,
    reviewers: query.status ? { $elemMatch: { userId: caller.userId, status: query.status } } : { $elemMatch: { userId: caller.userId } },
  };
  return recordPage(ctx, filter, query);
}

/**
 * Detail with a threaded comment page; the view counts as a hit once per viewer (the signed-in caller, else
 * the client address) per 24 h, before the record is read so the answer includes it.
 */
export async function recordDetail(
  ctx: RecordsContext,
  caller: AuthClaims | undefined,
  input: { recordId: number; clientAddress: string | undefined } & PageRequest,
): Promise<RecordDetail> {
  const { recordId } = input;
  const before = await liveRecord(ctx, recordId);
  // Hits are the public's: reading a record still in review (its author, its reviewers) counts nothing.
  if (before.notApproved === 0) await countView(ctx, recordId, viewerKey(caller?.userId, input.clientAddress));
  const record = await liveRecord(ctx, recordId);
  const commentPage = { page: input.page, size: input.size };
  const { skip, limit } = pageWindow(commentPage);
  const [comments, total] = await Promise.all([
    ctx.models.comments.find({ recordId }, { pendingEvents: 0 }).sort({ path: 1 }).skip(skip).limit(limit).lean<CommentDoc[]>().exec(),
    ctx.models.comments.countDocuments({ recordId }).exec(),
  ]);
  const nick = await nickNames(ctx, [record.authorId, ...comments.map((c) => c.authorId)]);
  const items: RecordCommentItem[] = comments.map((c) => ({
    comment_id: c._id,
    level: c.level,
    content: c.content,
    nick_name: nick(c.authorId),
    create_at: toMonthDayYear(c.createdAt),
  }));
  return {
    record_id: record._id,
    title: record.title,
    content: record.content,
    hits: record.hits,
    part: record.part,
    type: record.type,
    category: record.category,
    nick_name: nick(record.authorId),
    create_at: toMonthDayYear(record.createdAt),
    comments: buildPage(items, commentPage, total, { withPageable: true }),
  };
}

/** The review view for the team: the record (without type and category), its reviews and reviewers. */
export async function reviewDetail(ctx: RecordsContext, caller: AuthClaims, input: { recordId: number }): Promise<ReviewDetail> {
  if (!isAdmin(caller)) throw new AppError('J0006');
  const record = await liveRecord(ctx, input.recordId);
  const reviews = await ctx.models.reviews.find({ recordId: record._id }).sort({ createdAt: 1, _id: 1 }).lean<ReviewDoc[]>().exec();
  const nick = await nickNames(ctx, [record.authorId, ...reviews.map((r) => r.authorId), ...record.reviewers.map((r) => r.userId)]);
  return {
    record_id: record._id,
    title: record.title,
    content: record.content,
    hits: record.hits,
    part: record.part,
    nick_name: nick(record.authorId),
    create_at: toMonthDayYear(record.createdAt),
    reviews: reviews.map((r) => ({
      review_id: r._id,
      content: r.content,
      status: r.status,
      nick_name: nick(r.authorId),
      create_at: toMonthDayYear(r.createdAt),
    })),
    reviewers: record.reviewers.map((r) => ({ status: r.status, nick_name: nick(r.userId) })),
  };
}
