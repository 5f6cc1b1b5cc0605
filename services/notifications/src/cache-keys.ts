import type { CacheKeys, CacheLifetime } from '@binzip/shared';
import { recipientsOf, type CommentNotice } from './domain/comment-notices';

/**
 * What notifications' cached answers show, as the response cache's keys (docs/decisions-local.md, "Response
 * cache"): `inbox:<userId>`, one member's notifications. His notification list is kept per member and depends on
 * it alone (nicknames: the user projection's announcements forget everything); marking one read and a notice
 * stored for him change it.
 */
export const inboxKey = (userId: number): string => `inbox:${userId}`;

/** The inboxes a comment notice concerns, changed once its notifications are stored (new or already there). */
export const noticeKeys = (notice: CommentNotice): CacheKeys => recipientsOf(notice).map(inboxKey);

/**
 * How long a member's notification list is kept (`CacheLifetime`): a second. The comment notices' consumers
 * announce the inboxes they change, but the listing alerts, decisions and scrap-change notices (consumers of
 * houses' events) declare none, so only the lifetime bounds how late they show in a list already kept.
 */
export const INBOX_ANSWERS: CacheLifetime = { name: 'notifications', ttlMs: 1_000 };
