import { AppError, CONFLICT, invalidField, nextId, retryOnConflict, type AuthClaims } from '@binzip/shared';
import type { RecordDoc, ReviewDoc } from '../models';
import type { ReviewStatus, ReviewerStatus } from './vocabulary';
import type { RecordsContext } from './context';
import { liveRecord } from './access';

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
  if (!fits) throw invalidField('status');
}

/**
 * Moves a reviewer's entry from the status it was read with to `to`, with the outcome counters, in one
 * conditional single-document update. False when another write by the same reviewer moved the entry first.
 */
async function moveReviewerStatus(ctx: RecordsContext, recordId: number, userId: number, from: ReviewerStatus, to: ReviewerStatus): Promise<boolean> {
  const notApproved = (from === 'approve' ? 1 : 0) - (to === 'approve' ? 1 : 0);
  const rejected = (to === 'reject' ? 1 : 0) - (from === 'reject' ? 1 : 0);
  const result = await ctx.models.records
    .updateOne(
      { _id: recordId, deletedAt: null, reviewers: { $elemMatch: { userId, status: from } } },
      { $set: { 'reviewers.$.status': to }, $inc: { notApproved, rejected } },
    )
    .exec();
  return result.matchedCount === 1;
}

/**
 * Checks a review write against a fresh read of the record and, for a reviewer, first moves his or her entry
 * to the status the write leads to (`plan`), conditional on the status the checks saw. When a concurrent
 * write by the same reviewer moved it in between, the record is read and checked again: an approval that won
 * the race is final (R0000), so two simultaneous submissions behave as if sent one after the other.
 * The review document is written by the caller only after this returns.
 */
async function claimReviewWrite(
  ctx: RecordsContext,
  caller: AuthClaims,
  recordId: number,
  plan: (role: Role) => Promise<ReviewerStatus> | ReviewerStatus,
): Promise<{ record: RecordDoc; role: Role }> {
  // Same reviewer, same record, racing with himself or herself on every try: C0004 (shared `retryOnConflict`).
  return retryOnConflict(async () => {
    const record = await liveRecord(ctx, recordId);
    const role = roleIn(record, caller.userId);
    assertReviewOpen(record, role);
    const next = await plan(role);
    if (role.kind === 'author') return { record, role };
    return (await moveReviewerStatus(ctx, record._id, caller.userId, role.status, next)) ? { record, role } : CONFLICT;
  });
}

/** The status a review of the given status gives its writer: a verdict, or nothing for the author's answer. */
function verdictOf(role: Role, status: ReviewStatus): ReviewerStatus {
  assertStatusFits(role, status);
  return status === 'mine' ? 'wait' : status;
}

export async function createReview(
  ctx: RecordsContext,
  caller: AuthClaims,
  input: { record_id: number; content: string; status: ReviewStatus },
): Promise<number> {
  const { record } = await claimReviewWrite(ctx, caller, input.record_id, (role) => verdictOf(role, input.status));
  const now = ctx.now();
  const id = await nextId(ctx.models.reviews.db, 'record_review');
  await ctx.models.reviews.create({
    _id: id,
    recordId: record._id,
    authorId: caller.userId,
    content: input.content,
    status: input.status,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/** The caller's own review (C0001 when it or its record is gone, C0003 when someone else wrote it). */
async function ownReview(ctx: RecordsContext, caller: AuthClaims, reviewId: number): Promise<ReviewDoc> {
  const review = await ctx.models.reviews.findOne({ _id: reviewId }).lean<ReviewDoc>().exec();
  if (!review) throw AppError.notFound();
  await liveRecord(ctx, review.recordId);
  if (review.authorId !== caller.userId) throw AppError.forbidden();
  return review;
}

export async function updateReview(
  ctx: RecordsContext,
  caller: AuthClaims,
  input: { reviewId: number; content: string; status: ReviewStatus },
): Promise<number> {
  const { reviewId } = input;
  const review = await ownReview(ctx, caller, reviewId);
  // The edited review becomes the reviewer's latest word.
  await claimReviewWrite(ctx, caller, review.recordId, (role) => verdictOf(role, input.status));
  const result = await ctx.models.reviews.updateOne({ _id: reviewId }, { $set: { content: input.content, status: input.status, updatedAt: ctx.now() } }).exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  return reviewId;
}

export async function deleteReview(ctx: RecordsContext, caller: AuthClaims, input: { reviewId: number }): Promise<void> {
  const { reviewId } = input;
  const review = await ownReview(ctx, caller, reviewId);
  // Without this review the reviewer's word is his or her latest remaining review, or none yet.
  await claimReviewWrite(ctx, caller, review.recordId, async () => {
    const latest = await ctx.models.reviews
      .findOne({ recordId: review.recordId, authorId: caller.userId, _id: { $ne: reviewId } })
      .sort({ updatedAt: -1, _id: -1 })
      .lean<ReviewDoc>()
      .exec();
    return latest && latest.status !== 'mine' ? latest.status : 'wait';
  });
  const result = await ctx.models.reviews.deleteOne({ _id: reviewId }).exec();
  if (result.deletedCount === 0) throw AppError.notFound();
}
