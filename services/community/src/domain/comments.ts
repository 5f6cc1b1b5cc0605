import {
  AppError,
  auditEvent,
  buildPage,
  isAdmin,
  nextId,
  nickNameIn,
  nickNamesOf,
  pageWindow,
  rowsAndTotal,
  storedCollection,
  type AuthClaims,
  type PageObject,
  type PageRequest,
} from '@binzip/shared';
import { communityCommentCreated } from '@binzip/events';
import type { CommentDoc } from '../models';
import { boardComments, liveBoard, liveBoardsById } from './boards';
import type { CommunityContext } from './context';
import { commentItem, type CommentItem } from './render';

export interface CommentInput {
  boardId: number;
  content: string;
}

export interface OwnCommentItem {
  commentId: number;
  boardId: number;
  title: string;
  commentContent: string;
}

const NO_OUTBOX = { pendingEvents: 0 } as const;

export async function commentsOf(ctx: CommunityContext, input: { boardId: number }): Promise<CommentItem[]> {
  const { boardId } = input;
  await liveBoard(ctx, boardId);
  const comments = await boardComments(ctx, boardId);
  const nickNames = await nickNamesOf(
    ctx.models.users,
    comments.map((c) => c.authorId),
  );
  return comments.map((comment) => commentItem(comment, nickNames));
}

/**
 * Reads the board, a new id and the commenter's nickname together, then saves the comment and its
 * community.comment.created event in one document write (the outbox) while counting it on the board. The count
 * stays moved only if the insert succeeded, and only on a live board: if the board was deleted in between, the
 * comment is withdrawn (with its event) and the caller gets C0001.
 * A saved comment kicks the relay, which publishes at once instead of at its next tick.
 */
export async function createComment(ctx: CommunityContext, user: AuthClaims, input: CommentInput): Promise<number> {
  const { models } = ctx;
  // One round trip for the three reads (a missing board leaves a gap in the comment ids, as a withdrawn one does).
  const [board, id, nickNames] = await Promise.all([
    liveBoard(ctx, input.boardId),
    nextId(models.comments.db, 'comment'),
    nickNamesOf(models.users, [user.userId]),
  ]);
  const now = ctx.now();
  const event = communityCommentCreated.outbox({
    boardId: board._id,
    boardTitle: board.title,
    boardAuthorId: board.authorId,
    commentId: id,
    commenterId: user.userId,
    commenterNickName: nickNameIn(nickNames, user.userId),
    content: input.content,
    occurredAt: now.toISOString(),
  });
  // The insert and the board's count go to the store together (one round trip less on the site's second busiest
  // write); an insert that fails gives the count back, a board no longer live withdraws the comment.
  const [inserted, counted] = await Promise.allSettled([
    // Every field given in its stored type: written through the driver, without building a mongoose document.
    storedCollection(models.comments).insertOne({
      _id: id,
      boardId: board._id,
      authorId: user.userId,
      content: input.content,
      deleted: false,
      boardDeleted: false,
      createdAt: now,
      updatedAt: now,
      pendingEvents: [event],
    }),
    models.boards.updateOne({ _id: board._id, deleted: false }, { $inc: { commentCount: 1 } }).exec(),
  ]);
  if (inserted.status === 'rejected') {
    if (counted.status === 'fulfilled' && counted.value.matchedCount === 1)
      await models.boards.updateOne({ _id: board._id }, { $inc: { commentCount: -1 } }).exec();
    throw inserted.reason;
  }
  if (counted.status === 'rejected') throw counted.reason;
  if (counted.value.matchedCount === 0) {
    await models.comments.updateOne({ _id: id }, { $set: { deleted: true, boardDeleted: true, pendingEvents: [] } }).exec();
    throw AppError.notFound();
  }
  ctx.eventsPending({ model: models.comments, id });
  return id;
}

/** A comment that is not deleted and whose board is live; C0001 otherwise. */
async function liveComment(ctx: CommunityContext, commentId: number): Promise<CommentDoc> {
  const comment = await ctx.models.comments.findOne({ _id: commentId, deleted: false }, NO_OUTBOX).lean<CommentDoc>().exec();
  if (!comment) throw AppError.notFound();
  await liveBoard(ctx, comment.boardId);
  return comment;
}

export async function updateComment(ctx: CommunityContext, user: AuthClaims, input: CommentInput & { commentId: number }): Promise<number> {
  const { commentId } = input;
  const comment = await liveComment(ctx, commentId);
  // The body names the board: a comment id paired with another board's id does not exist there.
  if (comment.boardId !== input.boardId) throw AppError.notFound();
  if (comment.authorId !== user.userId) throw AppError.forbidden();
  const result = await ctx.models.comments.updateOne({ _id: commentId, deleted: false }, { $set: { content: input.content, updatedAt: ctx.now() } }).exec();
  if (result.matchedCount === 0) throw AppError.notFound();
  return commentId;
}

export async function deleteComment(ctx: CommunityContext, user: AuthClaims, input: { commentId: number }): Promise<void> {
  const { commentId } = input;
  const comment = await liveComment(ctx, commentId);
  if (comment.authorId !== user.userId && !isAdmin(user)) throw AppError.forbidden();
  // An administrator deleting someone else's comment is a moderation action: its audit entry goes with the write.
  const byModerator = comment.authorId !== user.userId;
  const now = ctx.now();
  const audit = byModerator
    ? {
        $push: {
          pendingEvents: auditEvent('community', user, { action: 'DELETE', targetType: 'COMMENT', targetId: commentId, memberId: comment.authorId }, now),
        },
      }
    : {};
  const result = await ctx.models.comments.updateOne({ _id: commentId, deleted: false }, { $set: { deleted: true, updatedAt: now }, ...audit }).exec();
  // Two deletes racing: only the one that flipped the flag moves the count.
  if (result.modifiedCount === 0) throw AppError.notFound();
  if (byModerator) ctx.eventsPending();
  await ctx.models.boards.updateOne({ _id: comment.boardId }, { $inc: { commentCount: -1 } }).exec();
}

/** The board a comment is on (a comment never moves), whatever its state; undefined for no such comment. */
export async function placeOfComment(ctx: CommunityContext, commentId: number): Promise<{ boardId: number; authorId: number } | undefined> {
  const comment = await ctx.models.comments.findById(commentId, { boardId: 1, authorId: 1 }).lean().exec();
  return comment ? { boardId: comment.boardId, authorId: comment.authorId } : undefined;
}

export async function myComments(ctx: CommunityContext, user: AuthClaims, request: PageRequest): Promise<PageObject<OwnCommentItem>> {
  const filter = { authorId: user.userId, deleted: false, boardDeleted: false };
  const { skip, limit } = pageWindow(request);
  const { rows: comments, total } = await rowsAndTotal(
    { skip, limit },
    () => ctx.models.comments.find(filter, NO_OUTBOX).sort({ _id: -1 }).skip(skip).limit(limit).lean<CommentDoc[]>().exec(),
    () => ctx.models.comments.countDocuments(filter).exec(),
  );
  const boards = await liveBoardsById(
    ctx,
    comments.map((c) => c.boardId),
  );
  const items = comments.flatMap((comment) => {
    const board = boards.get(comment.boardId);
    return board ? [{ commentId: comment._id, boardId: board._id, title: board.title, commentContent: comment.content }] : [];
  });
  return buildPage(items, request, total);
}
