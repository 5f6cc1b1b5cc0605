import { AppError, nextId, type AuthClaims } from '@binzip/shared';
import type { RecordDoc, ReviewDoc } from '../models';
import type { ReviewStatus, ReviewerStatus } from './catalog';
import type { RecordsContext } from './context';
import { liveRecord } from './visibility';

type Role = { kind: 'author' } | { kind: 'reviewer'; status: ReviewerStatus };

/** The caller's part in a record's review, or C0003 for an administrator outside it. */
function roleIn(record: RecordDoc, userId: number): Role {
  if (record.authorId === userId) return { kind: 'author' };
  const entry = record.reviewers.find((r) => r.userId === userId);
  if (!entry) throw AppError.forbidden();
  return { kind: 'reviewer', status: entry.status };
}

/**
 * R0000 whenever the outcome is settled for this writer: the record is already approved, or the writer is a
 * reviewer who already approved it (an approval is final).
 */
function assertReviewOpen(record: RecordDoc, role: Role): void {
  if (record.notApproved === 0) throw new AppError('R0000');
  if (role.kind === 'reviewer' && role.status === 'approve') throw new AppError('R0000');
}

/** The author answers with `mine`; reviewers give a verdict. */
function assertStatusFits(role: Role, status: ReviewStatus): void {
  const fits = role.kind === 'author' ? status === 'mine' : status !== 'mine';
  if (!fits) throw AppError.invalid('status 값이 올바르지 않습니다.');
}

/**
 * Brings a reviewer's entry on the record in line with the reviewer's latest review (or `wait` when none is
 * left), moving the outcome counters in the same single-document update. The update is conditional on the
 * status it read, so concurrent writes retry instead of double counting.
 */
async function syncReviewerStatus(ctx: RecordsContext, recordId: number, userId: number): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const latest = await ctx.models.reviews.findOne({ recordId, authorId: userId }).sort({ updatedAt: -1, _id: -1 }).lean<ReviewDoc>().exec();
    const desired: ReviewerStatus = latest && latest.status !== 'mine' ? latest.status : 'wait';
    const record = await ctx.models.records.findOne({ _id: recordId }, { reviewers: 1 }).lean<Pick<RecordDoc, 'reviewers'>>().exec();
    const current = record?.reviewers.find((r) => r.userId === userId)?.status;
    if (current === undefined || current === desired) return;
    const notApproved = (current === 'approve' ? 1 : 0) - (desired === 'approve' ? 1 : 0);
    const rejected = (desired === 'reject' ? 1 : 0) - (current === 'reject' ? 1 : 0);
    const result = await ctx.models.records
      .updateOne(
        { _id: recordId, reviewers: { $elemMatch: { userId, status: current } } },
        { $set: { 'reviewers.$.status': desired }, $inc: { notApproved, rejected } },
      )
      .exec();
    if (result.modifiedCount === 1) return;
  }
  ctx.logger.warn('reviewer status did not settle', { recordId, userId });
}

export async function createReview(
  ctx: RecordsContext,
  caller: AuthClaims,
  input: { record_id: number; content: string; status: ReviewStatus },
): Promise<number> {
  const record = await liveRecord(ctx.models, input.record_id);
  const role = roleIn(record, caller.userId);
  assertReviewOpen(record, role);
  assertStatusFits(role, input.status);
  const now = ctx.now();
  const id = await nextId(ctx.models.connection, 'record_review');
  await ctx.models.reviews.create({
    _id: id,
    recordId: record._id,
    authorId: caller.userId,
    content: input.content,
    status: input.status,
    createdAt: now,
    updatedAt: now,
  });
  if (role.kind === 'reviewer') await syncReviewerStatus(ctx, record._id, caller.userId);
  return id;
}

async function ownReview(ctx: RecordsContext, caller: AuthClaims, reviewId: number): Promise<{ review: ReviewDoc; record: RecordDoc; role: Role }> {
  const review = await ctx.models.reviews.findOne({ _id: reviewId }).lean<ReviewDoc>().exec();
  if (!review) throw AppError.notFound();
  const record = await liveRecord(ctx.models, review.recordId);
  if (review.authorId !== caller.userId) throw AppError.forbidden();
  const role = roleIn(record, caller.userId);
  assertReviewOpen(record, role);
  return { review, record, role };
}

export async function updateReview(
  ctx: RecordsContext,
  caller: AuthClaims,
  reviewId: number,
  input: { content: string; status: ReviewStatus },
): Promise<number> {
  const { record, role } = await ownReview(ctx, caller, reviewId);
  assertStatusFits(role, input.status);
  const result = await ctx.models.reviews.updateOne({ _id: reviewId }, { $set: { content: input.content, status: input.status, updatedAt: ctx.now() } }).exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  if (role.kind === 'reviewer') await syncReviewerStatus(ctx, record._id, caller.userId);
  return reviewId;
}

export async function deleteReview(ctx: RecordsContext, caller: AuthClaims, reviewId: number): Promise<void> {
  const { record, role } = await ownReview(ctx, caller, reviewId);
  const result = await ctx.models.reviews.deleteOne({ _id: reviewId }).exec();
  if (result.deletedCount === 0) throw AppError.notFound();
  if (role.kind === 'reviewer') await syncReviewerStatus(ctx, record._id, caller.userId);
}
