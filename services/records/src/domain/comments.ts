import { AppError, auditEvent, isAdmin, nextId, type AuthClaims } from '@binzip/shared';
import { recordCommentCreated } from '@binzip/events';
import { pathSegment, type CommentDoc } from '../models';
import { DELETED_COMMENT_TEXT } from './vocabulary';
import type { RecordsContext } from './context';
import { nickNames } from './render';
import { commentableRecord } from './access';

/**
 * Saves a comment or a reply (level = parent level + 1, any depth) together with its
 * records.comment.created outbox event in one document write.
 */
export async function createComment(
  ctx: RecordsContext,
  caller: AuthClaims,
  input: { record_id: number; parent_id: number | null; content: string },
): Promise<number> {
  const record = await commentableRecord(ctx, input.record_id, caller);
  let parent: CommentDoc | null = null;
  if (input.parent_id !== null) {
    parent = await ctx.models.comments.findOne({ _id: input.parent_id, recordId: record._id }, { pendingEvents: 0 }).lean<CommentDoc>().exec();
    if (!parent || parent.deleted) throw AppError.notFound();
  }
  const id = await nextId(ctx.models.comments.db, 'record_comment');
  const now = ctx.now();
  const nick = await nickNames(ctx, [caller.userId]);
  await ctx.models.comments.create({
    _id: id,
    recordId: record._id,
    authorId: caller.userId,
    parentId: parent?._id ?? null,
    level: parent ? parent.level + 1 : 1,
    path: parent ? `${parent.path}/${pathSegment(id)}` : pathSegment(id),
    content: input.content,
    deleted: false,
    createdAt: now,
    updatedAt: now,
    pendingEvents: [
      recordCommentCreated.outbox({
        recordId: record._id,
        recordTitle: record.title,
        recordAuthorId: record.authorId,
        parentCommentAuthorId: parent?.authorId ?? null,
        commentId: id,
        commenterId: caller.userId,
        commenterNickName: nick(caller.userId),
        content: input.content,
        occurredAt: now.toISOString(),
      }),
    ],
  });
  ctx.eventsPending({ model: ctx.models.comments, id });
  return id;
}

async function liveComment(ctx: RecordsContext, commentId: number): Promise<CommentDoc> {
  const comment = await ctx.models.comments.findOne({ _id: commentId, deleted: false }, { pendingEvents: 0 }).lean<CommentDoc>().exec();
  if (!comment) throw AppError.notFound();
  const record = await ctx.models.records.exists({ _id: comment.recordId, deletedAt: null }).exec();
  if (!record) throw AppError.notFound();
  return comment;
}

export async function updateComment(ctx: RecordsContext, caller: AuthClaims, input: { commentId: number; content: string }): Promise<number> {
  const { commentId, content } = input;
  const comment = await liveComment(ctx, commentId);
  if (comment.authorId !== caller.userId) throw AppError.forbidden();
  const result = await ctx.models.comments.updateOne({ _id: commentId, deleted: false }, { $set: { content, updatedAt: ctx.now() } }).exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  return commentId;
}

/** Soft delete: the comment keeps its place in the thread (its replies stay readable) with a fixed text. */
export async function deleteComment(ctx: RecordsContext, caller: AuthClaims, input: { commentId: number; reason?: string }): Promise<void> {
  const { commentId } = input;
  const comment = await liveComment(ctx, commentId);
  if (comment.authorId !== caller.userId && !isAdmin(caller)) throw AppError.forbidden();
  // An administrator deleting someone else's comment is a moderation action (issue 40): its audit entry goes with
  // the write, on the RECORD (the page the console links to) as DELETE_COMMENT, with the reason given (if any).
  const byModerator = comment.authorId !== caller.userId;
  const now = ctx.now();
  const audit = byModerator
    ? {
        $push: {
          pendingEvents: auditEvent(
            'records',
            caller,
            { action: 'DELETE_COMMENT', targetType: 'RECORD', targetId: comment.recordId, memberId: comment.authorId, reason: input.reason },
            now,
          ),
        },
      }
    : {};
  const result = await ctx.models.comments
    .updateOne({ _id: commentId, deleted: false }, { $set: { deleted: true, content: DELETED_COMMENT_TEXT, updatedAt: now }, ...audit })
    .exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  if (byModerator) ctx.eventsPending();
}
