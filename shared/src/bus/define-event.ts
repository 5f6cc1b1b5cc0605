import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CacheKeys } from '../core/cache-policy';
import { newOutboxEvent, type OutboxEvent } from './outbox';
import type { StreamDefinition } from './streams';

/**
 * One event, declared once (a producer's module of @binzip/events, `events/src/<service>.ts`; the runtime's own in
 * shared/src/bus/events.ts): its subject, the stream that keeps it, its version and the zod schema of its fields. The definition is the publisher's side (`outbox`: the event id and version filled
 * in, validated, stored with the write) and what a consumer names (`consume(event, ...)`); the compatibility gate
 * reads the same schema (`EVENT_CONTRACTS`).
 */
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
