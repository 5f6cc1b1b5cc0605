import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/** The comment notices' kinds: the contract's `type` (decisions.md), the only ones its list shows. */
export const CommentKinds = ['board', 'record'] as const;
export type NotificationKind = (typeof CommentKinds)[number];
/** The notices issue 38 added: only the feed, the stream and push show them. */
export const ListingKinds = ['LISTING_MATCH', 'LISTING_APPROVED', 'LISTING_REJECTED', 'SCRAP_CHANGED'] as const;
export type ListingKind = (typeof ListingKinds)[number];
export const NotificationKinds = [...CommentKinds, ...ListingKinds] as const;
export type StoredKind = (typeof NotificationKinds)[number];

/**
 * One notice to one user about one comment. `targetId`/`targetTitle` are the board's (kind board) or the
 * record's (kind record): the wire names them `board_id`/`board_title` for both.
 */
export interface NotificationDoc {
  _id: number;
  recipientId: number;
  kind: StoredKind;
  /**
   * The fact the notice is about, unique per kind and recipient: the comment's id (board, record), the listing's
   * id (LISTING_MATCH: a member is told of one listing once), or the notice's own id (the other listing kinds,
   * made unique per event by the (eventId, kind, recipientId) key).
   */
  commentId: number;
  /** A record comment notice sent to the author of the comment it answers: the feed's REPLY. */
  reply?: boolean;
  /** LISTING_MATCH: the saved search that matched (the member's first matching one). */
  savedSearchId?: number | null;
  /** LISTING_REJECTED: the administrator's reason. */
  reason?: string | null;
  /** SCRAP_CHANGED: the listing's price and deal state after the change. */
  price?: number | null;
  dealState?: string | null;
  targetId: number;
  targetTitle: string;
  comment: string;
  commenterId: number;
  /** The commenter's nickname when the comment was written; the projection's current one wins at read time. */
  commenterNickName: string;
  read: boolean;
  /** The event that created it, for tracing a notification back to its comment. */
  eventId: string;
  createdAt: Date;
}

const notificationSchema = new Schema<NotificationDoc>(
  {
    _id: { type: Number, required: true },
    recipientId: { type: Number, required: true },
    kind: { type: String, enum: NotificationKinds, required: true },
    commentId: { type: Number, required: true },
    reply: { type: Boolean, default: false },
    savedSearchId: { type: Number, default: null },
    reason: { type: String, default: null },
    price: { type: Number, default: null },
    dealState: { type: String, default: null },
    targetId: { type: Number, required: true },
    targetTitle: { type: String, default: '' },
    comment: { type: String, default: '' },
    // 0 on the listing kinds: nobody commented.
    commenterId: { type: Number, required: true },
    commenterNickName: { type: String, default: '' },
    read: { type: Boolean, required: true, default: false },
    eventId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'notifications' },
);

// Redelivered or re-published comment events must never notify the same user twice.
notificationSchema.index({ kind: 1, commentId: 1, recipientId: 1 }, { unique: true, name: 'one_per_comment_and_recipient' });
// The inbox: a recipient's notifications newest first, optionally by read flag.
notificationSchema.index({ recipientId: 1, _id: -1 });
notificationSchema.index({ recipientId: 1, read: 1, _id: -1 });
// One notice per event, kind and recipient, whatever is redelivered (the listing kinds; comment notices already were).
notificationSchema.index({ eventId: 1, kind: 1, recipientId: 1 }, { unique: true, name: 'one_per_event_and_recipient' });
// The contract's list (comment kinds only) and the feed's kind filter.
notificationSchema.index({ recipientId: 1, kind: 1, _id: -1 });
notificationSchema.index({ recipientId: 1, kind: 1, read: 1, _id: -1 });
// Alerts sent per day (the administrators' statistics).
notificationSchema.index({ kind: 1, createdAt: 1 });

export const notificationModel = (connection: Connection): Model<NotificationDoc> => registerModel(connection, 'Notification', notificationSchema);
