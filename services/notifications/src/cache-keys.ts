import type { CacheKeys } from '@binzip/shared';
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
