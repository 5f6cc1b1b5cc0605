import { z } from 'zod';
import { Authorities, UserTypes } from '../core/auth';
import { defineEvent, type EventData, type EventDefinition } from './define-event';

/** The events of the system, each defined once: producers and consumers of every service use these. */

/**
 * SUSPENDED came with the back office: consumers refuse a suspended member's writes. It was added to the v1
 * contract (not a v2) because every consumer shares this schema and ships with accounts; see
 * docs/decisions-local.md for the deploy order that keeps an older consumer from terminating such a snapshot.
 */
export const UserStatuses = ['ACTIVE', 'SUSPENDED', 'WITHDRAWAL_REQUESTED', 'WITHDRAWN'] as const;
export type UserStatus = (typeof UserStatuses)[number];

/** `accounts.user.<id>`: the latest snapshot of a user. `version` grows with every change. */
export const userSnapshots = defineEvent({
  subject: 'accounts.user.<id>',
  stream: 'ACCOUNTS',
  version: 1,
  schema: z.object({
    id: z.number().int().positive(),
    userName: z.string(),
    nick_name: z.string(),
    userType: z.enum(UserTypes),
    authority: z.enum(Authorities),
    status: z.enum(UserStatuses),
    version: z.number().int().nonnegative(),
    occurredAt: z.string(),
  }),
});
export type UserSnapshotV1 = EventData<typeof userSnapshots>;

/** `community.comment.created`: notifications tells the board's author. */
export const communityCommentCreated = defineEvent({
  subject: 'community.comment.created',
  stream: 'COMMUNITY',
  version: 1,
  schema: z.object({
    boardId: z.number().int().positive(),
    boardTitle: z.string(),
    boardAuthorId: z.number().int().positive(),
    commentId: z.number().int().positive(),
    commenterId: z.number().int().positive(),
    commenterNickName: z.string(),
    content: z.string(),
    occurredAt: z.string(),
  }),
});
export type CommunityCommentCreatedV1 = EventData<typeof communityCommentCreated>;

/** `records.comment.created`: notifications tells the record's author and, for a reply, the parent comment's. */
export const recordCommentCreated = defineEvent({
  subject: 'records.comment.created',
  stream: 'RECORDS',
  version: 1,
  schema: z.object({
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
  }),
});
export type RecordCommentCreatedV1 = EventData<typeof recordCommentCreated>;

/** `houses.report.created`: a member reported a listing; accounts keeps the author's latest report time and count. */
export const houseReportCreated = defineEvent({
  subject: 'houses.report.created',
  stream: 'HOUSES',
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    /** The listing's author: the member the report is against. */
    authorId: z.number().int().positive(),
    reporterId: z.number().int().positive(),
    reportType: z.string(),
    occurredAt: z.string(),
  }),
});
export type HouseReportCreatedV1 = EventData<typeof houseReportCreated>;

/**
 * `sessions.revoked`: accounts ended these sign-ins (logout, password change, withdrawal, a stolen refresh token;
 * a suspension revokes refresh tokens without announcing, so writes keep answering U0012). Every process refuses
 * their access tokens from then on, instead of letting them run out.
 */
export const sessionsRevoked = defineEvent({
  subject: 'sessions.revoked',
  stream: 'SESSIONS',
  version: 1,
  schema: z.object({
    userId: z.number().int().positive(),
    sessionIds: z.array(z.string().min(1).max(64)).min(1).max(10_000),
    occurredAt: z.string(),
  }),
});
export type SessionsRevokedV1 = EventData<typeof sessionsRevoked>;

/**
 * Every event of the system, one entry per subject and version. The release snapshot keeps their JSON Schemas
 * (`contracts/released/events/`, `npm run api:release`) and the compatibility gate checks the current ones
 * against it: an event another service reads must not change under the same version. A new version is a new
 * definition here (the old one stays until its consumers have moved).
 */
export const EVENTS: readonly EventDefinition[] = [userSnapshots, communityCommentCreated, recordCommentCreated, houseReportCreated, sessionsRevoked];

/** One event contract: what a producer publishes under `subject` at version `v`, as consumers parse it. */
export interface EventContract {
  /** File-safe name of the subject (`accounts.user` for `accounts.user.<id>`). */
  name: string;
  subject: string;
  v: number;
  schema: z.ZodType;
}

export const EVENT_CONTRACTS: readonly EventContract[] = EVENTS.map((event) => ({
  name: event.name,
  subject: event.subject,
  v: event.version,
  schema: event.schema,
}));
