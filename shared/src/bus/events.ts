import { z } from 'zod';
import { Authorities, UserTypes } from '../core/auth';
import { deadLetterStream } from './dead-letters';
import { defineEvent, type EventData } from './define-event';
import { defineStream } from './streams';

/**
 * The runtime's own events, each defined once: the user snapshots every service projects (users.ts), the session
 * revocations every process follows (revocation-feed.ts) and the administrators' audit entries (audit.ts). A
 * service's own events are in its producer's module of @binzip/events (events/src/<service>.ts).
 */

/**
 * SUSPENDED came with the back office: consumers refuse a suspended member's writes. It was added to the v1
 * contract (not a v2) because every consumer shares this schema and ships with accounts; see
 * docs/decisions-local.md for the deploy order that keeps an older consumer from terminating such a snapshot.
 */
export const UserStatuses = ['ACTIVE', 'SUSPENDED', 'WITHDRAWAL_REQUESTED', 'WITHDRAWN'] as const;
export type UserStatus = (typeof UserStatuses)[number];

/** Only the latest snapshot of each user matters: kept one per subject, never aged out. */
export const accountsStream = defineStream({ name: 'ACCOUNTS', subjects: ['accounts.>'], purpose: 'snapshots' });

/** `accounts.user.<id>`: the latest snapshot of a user. `version` grows with every change. */
export const userSnapshots = defineEvent({
  subject: 'accounts.user.<id>',
  stream: accountsStream,
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

/** A revocation matters only while the session's access tokens can still be valid: kept two hours. */
export const sessionsStream = defineStream({ name: 'SESSIONS', subjects: ['sessions.>'], purpose: 'revocations' });

/**
 * `sessions.revoked`: accounts ended these sign-ins (logout, password change, withdrawal, a stolen refresh token;
 * a suspension revokes refresh tokens without announcing, so writes keep answering U0012). Every process refuses
 * their access tokens from then on, instead of letting them run out.
 */
export const sessionsRevoked = defineEvent({
  subject: 'sessions.revoked',
  stream: sessionsStream,
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

/** Administrators' actions, published by every service that takes one (`audit.<service>`), gathered by accounts. */
export const auditStream = defineStream({ name: 'AUDIT', subjects: ['audit.>'], purpose: 'events' });

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
  stream: auditStream,
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
 * The streams the runtime itself uses in every process, ensured at start (`runService`) before the service's own:
 * the user snapshots (published by accounts, projected by every other service), the revocations every process
 * follows and the dead letters of every consumer. The rest are the streams of the events a service publishes and
 * consumes, learnt from its declaration (the audit entries among them).
 */
export const RUNTIME_STREAMS = [accountsStream, sessionsStream, deadLetterStream] as const;
