import { AppError, buildSlice, nickNamesOf, toIsoOffset, UNKNOWN_NICKNAME, type AuthClaims, type PageObject } from '@binzip/shared';
import { CommentKinds, type NotificationDoc, type StoredKind } from '../models';
import type { NotificationsContext } from './context';
import type { NoticeKind } from './vocabulary';

/**
 * One notice of any kind, in the notification area's snake_case (issue 38): what the feed, the live stream and
 * Web Push carry. The fields after `created_at` are those of its kind: comment notices (COMMENT, REPLY) the
 * contract's `board_id` … `type`; the listing kinds `house_id` and `house_title`, with `saved_search_id`
 * (LISTING_MATCH), `reason` (LISTING_REJECTED) or `price` and `deal_state` (SCRAP_CHANGED).
 */
export interface FeedItem {
  notification_id: number;
  kind: NoticeKind;
  status: boolean;
  created_at: string;
  nick_name?: string;
  board_id?: number;
  board_title?: string;
  comment?: string;
  comment_user?: string;
  type?: 'board' | 'record';
  house_id?: number;
  house_title?: string;
  saved_search_id?: number | null;
  reason?: string | null;
  price?: number | null;
  deal_state?: string | null;
}

export interface FeedPage {
  nextId: number | null;
  notifications: PageObject<FeedItem>;
}

/** The feed kind of a stored notice: a record notice to the answered comment's author is a REPLY. */
export function feedKindOf(doc: Pick<NotificationDoc, 'kind' | 'reply'>): NoticeKind {
  if (doc.kind === 'board') return 'COMMENT';
  if (doc.kind === 'record') return doc.reply ? 'REPLY' : 'COMMENT';
  return doc.kind;
}

/** The stored filter of one feed kind. */
function kindFilter(kind: NoticeKind): Record<string, unknown> {
  if (kind === 'COMMENT') return { kind: { $in: CommentKinds }, reply: { $ne: true } };
  if (kind === 'REPLY') return { kind: 'record', reply: true };
  return { kind: kind satisfies StoredKind };
}

/** A stored notice as a feed item; nicknames as the caller knows them (from the projection). */
export function toFeedItem(doc: NotificationDoc, nickNames: ReadonlyMap<number, string> = new Map()): FeedItem {
  const kind = feedKindOf(doc);
  const base = { notification_id: doc._id, kind, status: doc.read, created_at: toIsoOffset(doc.createdAt) };
  if (doc.kind === 'board' || doc.kind === 'record') {
    return {
      ...base,
      nick_name: nickNames.get(doc.recipientId) ?? UNKNOWN_NICKNAME,
      board_id: doc.targetId,
      board_title: doc.targetTitle,
      comment: doc.comment,
      comment_user: nickNames.get(doc.commenterId) ?? (doc.commenterNickName || UNKNOWN_NICKNAME),
      type: doc.kind,
    };
  }
  const item: FeedItem = { ...base, house_id: doc.targetId, house_title: doc.targetTitle };
  if (doc.kind === 'LISTING_MATCH') item.saved_search_id = doc.savedSearchId ?? null;
  if (doc.kind === 'LISTING_REJECTED') item.reason = doc.reason ?? '';
  if (doc.kind === 'SCRAP_CHANGED') {
    item.price = doc.price ?? null;
    item.deal_state = doc.dealState ?? null;
  }
  return item;
}

export interface FeedQuery {
  kind?: NoticeKind;
  read?: boolean;
  beforeId?: number;
  size: number;
}

/** Every kind, newest first, the contract list's cursor and page shape. */
export async function listFeed(ctx: NotificationsContext, caller: AuthClaims, query: FeedQuery): Promise<FeedPage> {
  const filter: Record<string, unknown> = { recipientId: caller.userId, ...(query.kind ? kindFilter(query.kind) : {}) };
  if (query.read !== undefined) filter.read = query.read;
  if (query.beforeId !== undefined) filter._id = { $lt: query.beforeId };
  const docs = await ctx.models.notifications
    .find(filter)
    .sort({ _id: -1 })
    .limit(query.size + 1)
    .lean<NotificationDoc[]>()
    .exec();
  const pageDocs = docs.slice(0, query.size);
  const nickNames = await nickNamesOf(ctx.models.users, [caller.userId, ...pageDocs.filter((d) => d.commenterId > 0).map((d) => d.commenterId)]);
  const content = pageDocs.map((doc) => toFeedItem(doc, nickNames));
  const last = pageDocs[pageDocs.length - 1];
  return {
    nextId: last ? last._id : null,
    notifications: buildSlice(content, { page: 0, size: query.size }, docs.length > query.size, { withPageable: true }),
  };
}

/** Notices newer than `afterId` (the stream's Last-Event-ID resume), oldest first, at most `limit`. */
export async function noticesAfter(ctx: NotificationsContext, userId: number, afterId: number, limit: number): Promise<FeedItem[]> {
  const docs = await ctx.models.notifications
    .find({ recipientId: userId, _id: { $gt: afterId } })
    .sort({ _id: -1 })
    .limit(limit)
    .lean<NotificationDoc[]>()
    .exec();
  const nickNames = await nickNamesOf(ctx.models.users, [userId, ...docs.filter((d) => d.commenterId > 0).map((d) => d.commenterId)]);
  return docs.reverse().map((doc) => toFeedItem(doc, nickNames));
}

/** Alerts (LISTING_MATCH notices) stored per day, the last `days` days in Korean time, oldest first. */
export async function alertStats(ctx: NotificationsContext, input: { days: number }): Promise<{ days: Array<{ date: string; alerts: number }> }> {
  if (input.days < 1) throw new AppError('C0002');
  const KST_MS = 9 * 3_600_000;
  const DAY_MS = 86_400_000;
  const now = ctx.now().getTime();
  const todayStart = Math.floor((now + KST_MS) / DAY_MS) * DAY_MS - KST_MS;
  const days = [];
  for (let i = input.days - 1; i >= 0; i--) {
    const start = new Date(todayStart - i * DAY_MS);
    const end = new Date(start.getTime() + DAY_MS);
    const alerts = await ctx.models.notifications.countDocuments({ kind: 'LISTING_MATCH', createdAt: { $gte: start, $lt: end } }).exec();
    days.push({ date: new Date(start.getTime() + KST_MS).toISOString().slice(0, 10), alerts });
  }
  return { days };
}
