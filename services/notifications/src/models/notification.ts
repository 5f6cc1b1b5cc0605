import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

export const NotificationKinds = ['board', 'record'] as const;
export type NotificationKind = (typeof NotificationKinds)[number];

/**
 * One notice to one user about one comment. `targetId`/`targetTitle` are the board's (kind board) or the
 * record's (kind record): the wire names them `board_id`/`board_title` for both.
 */
export interface NotificationDoc {
  _id: number;
  recipientId: number;
  kind: NotificationKind;
  commentId: number;
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
    targetId: { type: Number, required: true },
    targetTitle: { type: String, default: '' },
    comment: { type: String, default: '' },
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

export const notificationModel = (connection: Connection): Model<NotificationDoc> => registerModel(connection, 'Notification', notificationSchema);
