/**
 * One event, declared once (a producer's module of @binzip/events, `events/src/<service>.ts`; the runtime's own in
 * shared/src/bus/events.ts): its subject, the stream that keeps it, its version and the zod schema of its fields. The definition is the publisher's side (`outbox`: the event id and version filled
 * in, validated, stored with the write) and what a consumer names (`consume(event, ...)`); the compatibility gate
 * reads the same schema (`EVENT_CONTRACTS`). Below the mechanism, the runtime's own events and streams: members'
 * snapshots, revoked sessions and the administrators' audit.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CacheKeys } from '../core/operations';
import { newOutboxEvent, type OutboxEvent } from './outbox';
import { type StreamDefinition, defineStream } from './streams';
import { Authorities, UserTypes } from '../core/auth';
import { deadLetterStream } from './dead-letters';

export interface EventDefinition<S extends z.ZodObject = z.ZodObject> {
  /** File-safe name of the subject (`accounts.user` for `accounts.user.<id>`): the contract's file name. */
  readonly name: string;
  /** As declared: `community.comment.created`, or `accounts.user.<id>` with a payload field in a segment. */
  readonly subject: string;
  /** What a consumer subscribes to: the subject with `*` for each field segment. */
  readonly filter: string;
  /** The stream that keeps it, declared beside it (`defineStream`). */
  readonly stream: StreamDefinition;
  readonly version: number;
  /** The whole payload: `v` (the version), `eventId`, then the declared fields. */
  readonly schema: S;
  /** The subject one payload is published on. */
  subjectOf(data: z.output<S>): string;
  /** A validated payload with a new event id (or `eventId`) and the version; throws on fields the schema refuses. */
  build(fields: EventFields<S>, eventId?: string): z.output<S>;
  /**
   * The entry a producer stores in the written document's `pendingEvents` in the same write (then calls
   * `ctx.eventsPending()`); it keeps the request id and trace of the request being served.
   */
  outbox(fields: EventFields<S>): OutboxEvent;
}

/** The payload a consumer receives. */
export type EventData<E extends EventDefinition> = z.output<E['schema']>;
/** What a producer gives: the payload without the version and event id. */
export type EventFields<S extends z.ZodObject> = Omit<z.input<S>, 'v' | 'eventId'>;

const FIELD_SEGMENT = /^<(\w+)>$/;

type Envelope<V extends number> = { v: z.ZodLiteral<V>; eventId: z.ZodString };

export function defineEvent<const V extends number, F extends z.ZodRawShape>(declaration: {
  subject: string;
  stream: StreamDefinition;
  version: V;
  schema: z.ZodObject<F>;
}): EventDefinition<z.ZodObject<Envelope<V> & F>> {
  const { subject, stream, version } = declaration;
  const schema = z.object({ v: z.literal(version), eventId: z.string().min(1) }).extend(declaration.schema.shape) as unknown as z.ZodObject<Envelope<V> & F>;
  const segments = subject.split('.');
  const fields = segments.map((segment) => FIELD_SEGMENT.exec(segment)?.[1]);
  for (const field of fields) {
    if (field && !(field in declaration.schema.shape)) throw new Error(`event ${subject}: <${field}> is not a field of its schema`);
  }
  const subjectOf = (data: Record<string, unknown>) => segments.map((segment, i) => (fields[i] ? String(data[fields[i]]) : segment)).join('.');
  const build = (input: EventFields<z.ZodObject<Envelope<V> & F>>, eventId: string = randomUUID()) => schema.parse({ ...input, v: version, eventId });
  return {
    name: segments.filter((_, i) => !fields[i]).join('.'),
    subject,
    filter: segments.map((segment, i) => (fields[i] ? '*' : segment)).join('.'),
    stream,
    version,
    schema,
    subjectOf,
    build,
    outbox: (input) =>
      newOutboxEvent((eventId) => {
        const data = build(input, eventId);
        return { subject: subjectOf(data), data };
      }),
  };
}

/** Where a delivered event came from; `requestId` is the HTTP request that caused it, when it carried one. */
export interface EventMeta {
  subject: string;
  redelivered: boolean;
  seq: number;
  /** Deliveries of this message so far, this one included. */
  deliveries: number;
  requestId?: string;
}

/**
 * A durable consumer of one event, as a service declares it (`consume(event, { durable, handle })`) and
 * `runService` starts it. The bus acks an event only after `handle` resolved (its write is stored), redelivers
 * a failure after `backoffMs` up to `maxDeliver` times, and copies what it gives up on, or a payload its schema
 * refuses, to the dead letters. `handle` must be idempotent: an event can arrive twice (a redelivery after a
 * crash, a re-publication); a unique key on the event id or the facts it carries makes the second a no-op.
 */
export interface EventConsumer<E extends EventDefinition = EventDefinition> {
  event: E;
  /** Durable consumer name; survives restarts, shared by the instances of one service (changing it replays the stream). */
  durable: string;
  /** `last_per_subject` for snapshot projections a new instance rebuilds from; `all` by default. */
  deliverPolicy?: 'all' | 'last_per_subject' | 'new';
  /** Deliveries before the event is dead-lettered (default 20). */
  maxDeliver?: number;
  /** Redelivery delays in ms after a failed handling (nak with delay), by attempt. */
  backoffMs?: number[];
  /** How long a delivered message may stay unacknowledged before the server redelivers it (default 30 s). */
  ackWaitMs?: number;
  /** Asked before starting: true deletes the durable so every kept event is delivered again (an empty projection). */
  replayWhen?: () => Promise<boolean>;
  /** Runs inside the request-id context (and trace) of the request that caused the event. */
  handle(data: EventData<E>, meta: EventMeta): Promise<void>;
  /**
   * The response cache's keys a handled event changed, as a write's `changes` names them (`undefined`: everything):
   * once `handle` resolved, the runtime forgets them here and in the service's other instances (`withCacheChanges`).
   * Leave it out when the handler changes nothing a cached answer shows.
   */
  changes?: (data: EventData<E>) => CacheKeys | undefined;
}

export function consume<E extends EventDefinition>(event: E, options: Omit<EventConsumer<E>, 'event'>): EventConsumer<E> {
  return { event, ...options };
}

/**
 * The runtime's own events, each defined once: the user snapshots every service projects (members.ts), the session
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
