import { AppError, buildSlice, nickNamesOf, UNKNOWN_NICKNAME, type AuthClaims, type PageObject } from '@binzip/shared';
import { CommentKinds, type NotificationDoc, type NotificationKind } from '../models';
import type { NotificationsContext } from './context';

/** Exactly the spec's Notification resource plus decisions.md's `type`; nothing else goes on the wire. */
export interface NotificationItem {
  notification_id: number;
  nick_name: string;
  board_id: number;
  board_title: string;
  status: boolean;
  comment: string;
  comment_user: string;
  type: NotificationKind;
}

export interface InboxPage {
  nextId: number | null;
  notifications: PageObject<NotificationItem>;
}

export interface InboxQuery {
  /** undefined = all, false = unread, true = read */
  read?: boolean;
  /** Cursor: only ids smaller than this one. */
  beforeId?: number;
  size: number;
}

/** Newest first, cursor by id; nicknames come from the user projection at read time so renames show. */
export async function listInbox(ctx: NotificationsContext, caller: AuthClaims, query: InboxQuery): Promise<InboxPage> {
  const recipientId = caller.userId;
  // Only comment notices: the contract's list shows nothing a client of the spec cannot read (issue 38).
  const filter: Record<string, unknown> = { recipientId, kind: { $in: CommentKinds } };
  if (query.read !== undefined) filter.read = query.read;
  if (query.beforeId !== undefined) filter._id = { $lt: query.beforeId };
  const docs = await ctx.models.notifications
    .find(filter)
    .sort({ _id: -1 })
    .limit(query.size + 1)
    .lean<NotificationDoc[]>()
    .exec();
  const hasNext = docs.length > query.size;
  const pageDocs = docs.slice(0, query.size);
  const nickNames = await nickNamesOf(ctx.models.users, [recipientId, ...pageDocs.map((d) => d.commenterId)]);
  const recipientNickName = nickNames.get(recipientId) ?? UNKNOWN_NICKNAME;
  const content = pageDocs.map((doc): NotificationItem => ({
    notification_id: doc._id,
    nick_name: recipientNickName,
    board_id: doc.targetId,
    board_title: doc.targetTitle,
    status: doc.read,
    comment: doc.comment,
    comment_user: nickNames.get(doc.commenterId) ?? (doc.commenterNickName || UNKNOWN_NICKNAME),
    type: doc.kind as NotificationKind,
  }));
  const last = pageDocs[pageDocs.length - 1];
  return {
    nextId: last ? last._id : null,
    // A cursor list has no page numbers: every answer is "page 0" of what lies past the cursor.
    notifications: buildSlice(content, { page: 0, size: query.size }, hasNext, { withPageable: true }),
  };
}

/** Marks one notification read (idempotent); only its recipient may. */
export async function markRead(ctx: NotificationsContext, caller: AuthClaims, input: { notificationId: number }): Promise<number> {
  const model = ctx.models.notifications;
  const { notificationId } = input;
  const userId = caller.userId;
  const doc = await model.findById(notificationId, { recipientId: 1, read: 1 }).lean<Pick<NotificationDoc, '_id' | 'recipientId' | 'read'>>().exec();
  if (!doc) throw new AppError('C0001');
  if (doc.recipientId !== userId) throw new AppError('C0003');
  if (!doc.read) await model.updateOne({ _id: notificationId, recipientId: userId }, { $set: { read: true } }).exec();
  return notificationId;
}
