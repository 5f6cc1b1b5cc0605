import { z } from 'zod';
import { Authorities, UserTypes } from './auth';

/** Event contracts shared by producers and consumers; every payload is versioned. */

/**
 * SUSPENDED came with the back office: consumers refuse a suspended member's writes. It was added to the v1
 * contract (not a v2) because every consumer shares this schema and ships with accounts; see
 * docs/decisions-local.md for the deploy order that keeps an older consumer from terminating such a snapshot.
 */
export const UserStatuses = ['ACTIVE', 'SUSPENDED', 'WITHDRAWAL_REQUESTED', 'WITHDRAWN'] as const;
export type UserStatus = (typeof UserStatuses)[number];

/** `accounts.user.<id>`: the latest snapshot of a user. `version` grows with every change. */
export const userSnapshotV1 = z.object({
  v: z.literal(1),
  eventId: z.string().min(1),
  id: z.number().int().positive(),
  userName: z.string(),
  nick_name: z.string(),
  userType: z.enum(UserTypes),
  authority: z.enum(Authorities),
  status: z.enum(UserStatuses),
  version: z.number().int().nonnegative(),
  occurredAt: z.string(),
});
export type UserSnapshotV1 = z.infer<typeof userSnapshotV1>;
export const userSubject = (id: number): string => `accounts.user.${id}`;
export const USER_SUBJECTS = 'accounts.user.*';

/** `community.comment.created` */
export const communityCommentCreatedV1 = z.object({
  v: z.literal(1),
  eventId: z.string().min(1),
  boardId: z.number().int().positive(),
  boardTitle: z.string(),
  boardAuthorId: z.number().int().positive(),
  commentId: z.number().int().positive(),
  commenterId: z.number().int().positive(),
  commenterNickName: z.string(),
  content: z.string(),
  occurredAt: z.string(),
});
export type CommunityCommentCreatedV1 = z.infer<typeof communityCommentCreatedV1>;
export const COMMUNITY_COMMENT_CREATED = 'community.comment.created';

/** `records.comment.created` */
export const recordCommentCreatedV1 = z.object({
  v: z.literal(1),
  eventId: z.string().min(1),
  recordId: z.number().int().positive(),
  recordTitle: z.string(),
  recordAuthorId: z.number().int().positive(),
  /** Present when the comment is a reply: the author of the comment replied to. */
  parentCommentAuthorId: z.number().int().positive().nullable(),
  commentId: z.number().int().positive(),
  commenterId: z.number().int().positive(),
  commenterNickName: z.string(),
  content: z.string(),
  occurredAt: z.string(),
});
export type RecordCommentCreatedV1 = z.infer<typeof recordCommentCreatedV1>;
export const RECORDS_COMMENT_CREATED = 'records.comment.created';

/** `houses.report.created`: a member reported a listing; accounts keeps the author's latest report time and count. */
export const houseReportCreatedV1 = z.object({
  v: z.literal(1),
  eventId: z.string().min(1),
  houseId: z.number().int().positive(),
  /** The listing's author: the member the report is against. */
  authorId: z.number().int().positive(),
  reporterId: z.number().int().positive(),
  reportType: z.string(),
  occurredAt: z.string(),
});
export type HouseReportCreatedV1 = z.infer<typeof houseReportCreatedV1>;
export const HOUSES_REPORT_CREATED = 'houses.report.created';

/** One event contract: what a producer publishes under `subject` at version `v`, as consumers parse it. */
export interface EventContract {
  /** File-safe name of the subject (`accounts.user` for `accounts.user.<id>`). */
  name: string;
  subject: string;
  v: number;
  schema: z.ZodType;
}

/**
 * Every event contract, one per subject and version. The release snapshot keeps their JSON Schemas
 * (`contracts/released/events/`, `npm run api:release`) and the compatibility gate checks the current ones
 * against it: an event another service reads must not change under the same `v`. A new version is a new entry
 * here (the old one stays until its consumers have moved).
 */
export const EVENT_CONTRACTS: readonly EventContract[] = [
  { name: 'accounts.user', subject: 'accounts.user.<id>', v: 1, schema: userSnapshotV1 },
  { name: COMMUNITY_COMMENT_CREATED, subject: COMMUNITY_COMMENT_CREATED, v: 1, schema: communityCommentCreatedV1 },
  { name: RECORDS_COMMENT_CREATED, subject: RECORDS_COMMENT_CREATED, v: 1, schema: recordCommentCreatedV1 },
  { name: HOUSES_REPORT_CREATED, subject: HOUSES_REPORT_CREATED, v: 1, schema: houseReportCreatedV1 },
];
