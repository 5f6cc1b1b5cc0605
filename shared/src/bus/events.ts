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
 * `houses.listing.published`: a listing became public (an agent's or administrator's save, an approval, a draft
 * saved by either): notifications matches it against the members' saved searches (issue 38). Published once per
 * change from not listed to listed, never for an edit of a listing that stays listed; the point is the one known
 * at that moment (null while the geocoder has not found it).
 */
export const houseListingPublished = defineEvent({
  subject: 'houses.listing.published',
  stream: 'HOUSES',
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    authorId: z.number().int().positive(),
    title: z.string(),
    rentalType: z.string(),
    dealState: z.string(),
    houseType: z.string().nullable(),
    recommendedTag: z.array(z.string()),
    price: z.number(),
    /** The current province-level name and the county the listing's `city` names (houses' `regionOf`). */
    province: z.string().nullable(),
    county: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    occurredAt: z.string(),
  }),
});
export type HouseListingPublishedV1 = EventData<typeof houseListingPublished>;

/** `houses.listing.decided`: an administrator approved or rejected a waiting listing; notifications tells its author. */
export const houseListingDecided = defineEvent({
  subject: 'houses.listing.decided',
  stream: 'HOUSES',
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    authorId: z.number().int().positive(),
    title: z.string(),
    approved: z.boolean(),
    /** The administrator's reason for a rejection; null on an approval. */
    reason: z.string().nullable(),
    occurredAt: z.string(),
  }),
});
export type HouseListingDecidedV1 = EventData<typeof houseListingDecided>;

/**
 * `houses.listing.changed`: a listing's price or deal state changed; notifications tells the members who had
 * scrapped it (their ids as houses knew them at the write, at most 10,000).
 */
export const houseListingChanged = defineEvent({
  subject: 'houses.listing.changed',
  stream: 'HOUSES',
  version: 1,
  schema: z.object({
    houseId: z.number().int().positive(),
    authorId: z.number().int().positive(),
    title: z.string(),
    price: z.number(),
    dealState: z.string(),
    previousPrice: z.number(),
    previousDealState: z.string().nullable(),
    scrapperIds: z.array(z.number().int().positive()).max(10_000),
    occurredAt: z.string(),
  }),
});
export type HouseListingChangedV1 = EventData<typeof houseListingChanged>;

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

/** What an administrator's action is on (issue 40): a listing, a member, a post, a comment, a report, a team record. */
export const AuditTargetTypes = ['HOUSE', 'USER', 'BOARD', 'COMMENT', 'REPORT', 'RECORD'] as const;
export type AuditTargetType = (typeof AuditTargetTypes)[number];
export const AuditServices = ['accounts', 'community', 'houses', 'records'] as const;
export type AuditService = (typeof AuditServices)[number];
/** An upper-case verb (APPROVE, REJECT, SUSPEND, ...): a string, not an enum, so a new kind of action is not a new version. */
export const AUDIT_ACTION_PATTERN = /^[A-Z][A-Z_]{0,39}$/;

/**
 * `audit.<service>`: an administrator did something. The service that did it stores this event in the same
 * write as the action (its outbox), so an action is never stored without its entry; accounts gathers the entries
 * once each (unique on the event id) and serves `GET /api/v1/admin/audit`. The actor is as the token named them at
 * the time (a later nickname or userName change does not rewrite history). `memberId` is the member the action
 * concerns (the suspended member, a listing's or post's author), so a member's page can show what was done to them;
 * `reason` is the reject reason, the suspension reason or a report decision's note (notices read it too).
 */
export const adminActionRecorded = defineEvent({
  subject: 'audit.<service>',
  stream: 'AUDIT',
  version: 1,
  schema: z.object({
    service: z.enum(AuditServices),
    actorId: z.number().int().positive(),
    actorUserName: z.string(),
    action: z.string().regex(AUDIT_ACTION_PATTERN),
    targetType: z.enum(AuditTargetTypes),
    targetId: z.number().int().positive(),
    memberId: z.number().int().positive().nullable(),
    reason: z.string().nullable(),
    requestId: z.string().nullable(),
    occurredAt: z.string(),
  }),
});
export type AdminActionRecordedV1 = EventData<typeof adminActionRecorded>;

/**
 * Every event of the system, one entry per subject and version. The release snapshot keeps their JSON Schemas
 * (`contracts/released/events/`, `npm run api:release`) and the compatibility gate checks the current ones
 * against it: an event another service reads must not change under the same version. A new version is a new
 * definition here (the old one stays until its consumers have moved).
 */
export const EVENTS: readonly EventDefinition[] = [
  userSnapshots,
  communityCommentCreated,
  recordCommentCreated,
  houseReportCreated,
  sessionsRevoked,
  adminActionRecorded,
  houseListingPublished,
  houseListingDecided,
  houseListingChanged,
];

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
