/**
 * What notifications stores: one mongoose schema per collection, each registered on the service's connection, and
 * `notificationsModels(connection)`, the models by lower-case name that the context carries.
 */
import { registerModel, storedCollection, type AuthClaims, projectedUserModel } from '@binzip/shared';
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

/**
 * Stores one notice with every field given in its stored type (the schema's defaults written out, which the
 * `Required` type checks): through the driver, without building a mongoose document. A repeat meets a unique key
 * and throws the duplicate-key error its callers absorb.
 */
export async function insertNotification(model: Model<NotificationDoc>, doc: Required<NotificationDoc>): Promise<void> {
  // A copy: the driver adds an `_id` to the document it is given when it has none.
  await storedCollection(model).insertOne({ ...doc });
}

/** A member's choice of the kinds of notice he gets (issue 38); a kind not named is on. `_id` is the member's id. */
export interface PreferencesDoc {
  _id: number;
  off: string[];
  updatedAt: Date;
}

const preferencesSchema = new Schema<PreferencesDoc>(
  {
    _id: { type: Number, required: true },
    off: { type: [String], default: [] },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'notification_preferences' },
);

// Who turned a kind off: asked once per notice being stored for many members (the alert fan-out).
preferencesSchema.index({ off: 1 });

export const preferencesModel = (connection: Connection): Model<PreferencesDoc> => registerModel(connection, 'NotificationPreferences', preferencesSchema);

/**
 * One browser's Web Push subscription (issue 38), stored per device: `_id` is the push service's endpoint (a
 * device's subscription is its endpoint; the same endpoint saved again by another member moves to him, the
 * browser having changed hands). `p256dh` and `auth` are the browser's keys the payload is encrypted with.
 */
export interface PushSubscriptionDoc {
  _id: string;
  userId: number;
  p256dh: string;
  auth: string;
  /** The browser's `expirationTime`, when it gave one (informative: the push service still decides). */
  expiresAt: Date | null;
  createdAt: Date;
}

const pushSubscriptionSchema = new Schema<PushSubscriptionDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: Number, required: true },
    p256dh: { type: String, required: true },
    auth: { type: String, required: true },
    expiresAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'push_subscriptions' },
);

// A member's devices: read for every notice pushed to him, oldest first when the ceiling drops one.
pushSubscriptionSchema.index({ userId: 1, createdAt: 1 });

export const pushSubscriptionModel = (connection: Connection): Model<PushSubscriptionDoc> =>
  registerModel(connection, 'PushSubscription', pushSubscriptionSchema);

/** The conditions of a saved search (관심 조건, issue 38), as the member gave them. */
export interface SearchConditions {
  province?: string | null;
  county?: string | null;
  rentalType?: string | null;
  dealState?: string | null;
  houseType?: string | null;
  recommendedTag?: string | null;
  minPrice?: number | null;
  maxPrice?: number | null;
  south?: number | null;
  west?: number | null;
  north?: number | null;
  east?: number | null;
  latitude?: number | null;
  longitude?: number | null;
  radiusKm?: number | null;
}

export interface SavedSearchDoc extends SearchConditions {
  _id: number;
  userId: number;
  name: string;
  alert: boolean;
  /**
   * What a published listing must carry to be compared with this search at all (domain/matching.ts
   * `searchKeys`): one key per province it stands for and its rental type, `*` for either left open. Empty when
   * `alert` is off, so the match index never returns it.
   */
  matchKeys: string[];
  createdAt: Date;
  updatedAt: Date;
}

const num = { type: Number, default: null };
const str = { type: String, default: null };

const savedSearchSchema = new Schema<SavedSearchDoc>(
  {
    _id: { type: Number, required: true },
    userId: { type: Number, required: true },
    name: { type: String, required: true },
    province: str,
    county: str,
    rentalType: str,
    dealState: str,
    houseType: str,
    recommendedTag: str,
    minPrice: num,
    maxPrice: num,
    south: num,
    west: num,
    north: num,
    east: num,
    latitude: num,
    longitude: num,
    radiusKm: num,
    alert: { type: Boolean, required: true },
    matchKeys: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'saved_searches', minimize: false },
);

// A member's searches in the order saved (and the count of the 20 allowed).
savedSearchSchema.index({ userId: 1, _id: 1 });
// The match index: a listing asks for its four keys, never for every search (multikey).
savedSearchSchema.index({ matchKeys: 1 });

export const savedSearchModel = (connection: Connection): Model<SavedSearchDoc> => registerModel(connection, 'SavedSearch', savedSearchSchema);

/**
 * A single-use ticket for the live stream (issue 38): the browser's EventSource cannot send an Authorization
 * header, so a member asks for a ticket with his token and opens the stream with `?ticket=`. Stored (not signed)
 * so that any replica can take it and taking it once removes it. `_id` is the ticket's random text.
 */
export interface StreamTicketDoc {
  _id: string;
  claims: AuthClaims;
  /** The stream ends when the token the ticket was asked with expires. */
  tokenExpiresAt: Date;
  expiresAt: Date;
}

const streamTicketSchema = new Schema<StreamTicketDoc>(
  {
    _id: { type: String, required: true },
    claims: { type: Schema.Types.Mixed, required: true },
    tokenExpiresAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'stream_tickets' },
);

// Expired tickets are swept by this key (domain/stream.ts).
streamTicketSchema.index({ expiresAt: 1 });

export const streamTicketModel = (connection: Connection): Model<StreamTicketDoc> => registerModel(connection, 'StreamTicket', streamTicketSchema);

export type NotificationsModels = ReturnType<typeof notificationsModels>;

export function notificationsModels(connection: Connection) {
  return {
    notifications: notificationModel(connection),
    savedSearches: savedSearchModel(connection),
    preferences: preferencesModel(connection),
    streamTickets: streamTicketModel(connection),
    pushSubscriptions: pushSubscriptionModel(connection),
    users: projectedUserModel(connection),
  };
}

/** Builds the indexes before anything relies on the unique key (consumers start after this). */
export async function initModels(models: NotificationsModels): Promise<void> {
  await Promise.all([
    models.notifications.init(),
    models.savedSearches.init(),
    models.preferences.init(),
    models.streamTickets.init(),
    models.pushSubscriptions.init(),
    models.users.init(),
  ]);
}
