/**
 * A JetStream stream's declaration and its ensuring (limits, replicas, storage), and the narrow views of the
 * connection the bus functions take (`PublishHost`, `ConsumeHost`: `EventBus` implements them).
 */
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
  type JetStreamClient,
} from '@nats-io/jetstream';
import { NoRespondersError, TimeoutError, nanos, type NatsConnection } from '@nats-io/nats-core';
import type { Logger, TraceCarrier } from '../core/telemetry';

/** What a stream keeps and for how long (see `streamLimits`). */
export type StreamPurpose = 'snapshots' | 'events' | 'revocations' | 'deadLetters';

/**
 * One stream, declared once by whoever owns its subjects: a producer's contract module (`events/src/<service>.ts`)
 * beside its events, the runtime's own in shared/src/bus (events.ts, dead-letters.ts). An event names its stream
 * (`defineEvent({ stream })`), so a process ensures exactly the streams of the events it publishes and consumes;
 * consumers ensure them too, so start order never matters.
 */
export interface StreamDefinition {
  /** Upper-case, without the prefix a bus adds (`COMMUNITY`; `T1_COMMUNITY` under the prefix `t1`). */
  readonly name: string;
  /** The subjects it keeps, without the prefix (`community.>`). */
  readonly subjects: readonly string[];
  readonly purpose: StreamPurpose;
}

const STREAM_NAME = /^[A-Z][A-Z0-9_]*$/;

export function defineStream<const N extends string>(definition: {
  name: N;
  subjects: readonly string[];
  purpose: StreamPurpose;
}): StreamDefinition & { readonly name: N } {
  if (!STREAM_NAME.test(definition.name)) throw new Error(`stream ${definition.name}: a stream's name is upper-case letters, digits and _`);
  if (definition.subjects.length === 0) throw new Error(`stream ${definition.name}: no subjects`);
  return Object.freeze({ name: definition.name, subjects: Object.freeze([...definition.subjects]), purpose: definition.purpose });
}

/** The streams once each, by name; two different definitions under one name are a mistake said at start-up. */
export function distinctStreams(streams: Iterable<StreamDefinition>): StreamDefinition[] {
  const byName = new Map<string, StreamDefinition>();
  for (const stream of streams) {
    const known = byName.get(stream.name);
    if (known && (known.purpose !== stream.purpose || known.subjects.join() !== stream.subjects.join())) {
      throw new Error(`stream ${stream.name} is defined twice, differently`);
    }
    byName.set(stream.name, known ?? stream);
  }
  return [...byName.values()];
}

/**
 * How streams are kept: `NATS_REPLICAS`, `EVENT_RETENTION_HOURS`, `DEAD_LETTER_RETENTION_HOURS`,
 * `EVENT_STREAM_MAX_MIB`, `DEAD_LETTER_STREAM_MAX_MIB`.
 */
export interface StreamSettings {
  replicas: number;
  eventRetentionMs: number;
  deadLetterRetentionMs: number;
  /** Byte ceiling of each event stream; NATS reserves it on its store when the stream is created. */
  eventMaxBytes: number;
  deadLetterMaxBytes: number;
}

const HOUR_MS = 3_600_000;
export const MIB = 1024 ** 2;
export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  replicas: 1,
  eventRetentionMs: 14 * 24 * HOUR_MS,
  deadLetterRetentionMs: 30 * 24 * HOUR_MS,
  eventMaxBytes: 32 * MIB,
  deadLetterMaxBytes: 8 * MIB,
};

/** The setting that sizes a stream of each purpose (named in errors); snapshots have no byte ceiling. */
const SIZE_SETTING: Record<StreamPurpose, string | undefined> = {
  snapshots: undefined,
  revocations: undefined,
  events: 'EVENT_STREAM_MAX_MIB',
  deadLetters: 'DEAD_LETTER_STREAM_MAX_MIB',
};

/**
 * Limits by purpose. Snapshots: only the latest per subject matters (a projection replays the last message
 * of every user), and it must never age out or be pushed out by size, so it has no byte ceiling (one small
 * message per member; it reserves nothing). Events: consumed within seconds; kept for a bounded time and
 * size so a consumer can catch up after an outage, oldest dropped first. Dead letters: kept longer, for a
 * person to inspect and replay.
 */
function streamLimits(purpose: StreamPurpose, settings: StreamSettings): Pick<StreamConfig, 'max_msgs_per_subject' | 'max_age' | 'max_bytes' | 'discard'> {
  switch (purpose) {
    case 'snapshots':
      return { max_msgs_per_subject: 1, max_age: 0, max_bytes: -1, discard: DiscardPolicy.Old };
    case 'events':
      return { max_msgs_per_subject: -1, max_age: nanos(settings.eventRetentionMs), max_bytes: settings.eventMaxBytes, discard: DiscardPolicy.Old };
    case 'revocations':
      // A revocation matters only while access tokens of the session can still be valid (30 minutes); about
      // 150 bytes each, 8 MiB hold some 50,000 in the two hours kept.
      return { max_msgs_per_subject: -1, max_age: nanos(2 * HOUR_MS), max_bytes: 8 * MIB, discard: DiscardPolicy.Old };
    case 'deadLetters':
      return { max_msgs_per_subject: -1, max_age: nanos(settings.deadLetterRetentionMs), max_bytes: settings.deadLetterMaxBytes, discard: DiscardPolicy.Old };
  }
}

/** JetStream's answer when a stream's byte ceiling does not fit in what its store has left. */
const INSUFFICIENT_STORAGE = 10047;
function isInsufficientStorage(err: unknown): boolean {
  return (err instanceof JetStreamApiError && err.code === INSUFFICIENT_STORAGE) || /insufficient storage/i.test(String((err as Error).message));
}

const mib = (bytes: number) => `${Math.round((bytes / MIB) * 10) / 10} MiB`;

/**
 * A stream's byte ceiling does not fit the broker: said with the setting to change, so an operator does not
 * have to know that NATS reserves a stream's whole ceiling when it creates it.
 */
export class StreamStorageError extends Error {
  constructor(
    readonly stream: string,
    /** The environment variable that sizes the stream; undefined for the snapshots, which have no ceiling. */
    readonly setting: string | undefined,
    reason: string,
  ) {
    super(
      setting
        ? `stream ${stream} does not fit the NATS JetStream store (${reason}): lower ${setting} or give JetStream more storage ` +
            "(nats-server `max_file_store`, or the account's storage limit); every stream reserves its whole ceiling when it is created"
        : `stream ${stream} could not be created (${reason}): the NATS JetStream store is full; lower EVENT_STREAM_MAX_MIB or ` +
            'DEAD_LETTER_STREAM_MAX_MIB, remove streams nobody uses (`npm run clean` for a dev data folder) or give JetStream more storage',
    );
    this.name = 'StreamStorageError';
  }
}

/** What the stream keeper needs of a bus: its JetStream manager, its names and its settings. */
export interface StreamHost {
  readonly manager: JetStreamManager;
  readonly logger: Logger;
  readonly settings: StreamSettings;
  subject(name: string): string;
  streamName(name: string): string;
}

function streamConfig(host: StreamHost, definition: StreamDefinition) {
  return {
    name: host.streamName(definition.name),
    subjects: definition.subjects.map((s) => host.subject(s)),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: host.settings.replicas,
    duplicate_window: nanos(2 * 60_000),
    ...streamLimits(definition.purpose, host.settings),
  };
}

function existingStream(manager: JetStreamManager, name: string): Promise<StreamConfig | undefined> {
  return manager.streams.info(name).then(
    (info) => info.config,
    (err: Error) => {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      return undefined;
    },
  );
}

/**
 * Creates the stream, or brings an existing one to the current settings (a changed ceiling or retention
 * updates it in place). A ceiling the broker has no room for fails with a `StreamStorageError` naming the
 * setting.
 */
export async function ensureStream(host: StreamHost, stream: StreamDefinition): Promise<void> {
  const config = streamConfig(host, stream);
  const existing = await existingStream(host.manager, config.name);
  try {
    if (!existing) {
      await host.manager.streams.add(config);
      return;
    }
    await host.manager.streams.update(config.name, config);
  } catch (err) {
    if (isInsufficientStorage(err)) {
      throw new StreamStorageError(
        config.name,
        SIZE_SETTING[stream.purpose],
        config.max_bytes > 0
          ? `${mib(config.max_bytes)} × ${config.num_replicas} replica(s) asked, NATS answered "${(err as Error).message}"`
          : `NATS answered "${(err as Error).message}"`,
      );
    }
    if (!existing) throw err;
    // What NATS refuses to change in place (e.g. the storage type, more replicas than the cluster has) leaves
    // the stream as it was, said loudly, rather than keeping the service down.
    host.logger.warn('stream keeps its earlier configuration', { stream: config.name, error: (err as Error).message });
  }
}

/**
 * Start-up check of the streams a process uses (`runService`: the runtime's own, then those of the events the
 * service publishes and consumes): the ceilings are first compared with what the broker reports for this account
 * (a per-stream maximum, a storage limit), then each stream is created or updated, so a ceiling that does not fit
 * stops the process with an error naming its setting before it serves anything.
 */
export async function ensureStreams(host: StreamHost, streams: Iterable<StreamDefinition>): Promise<void> {
  const definitions = distinctStreams(streams);
  const account = await host.manager.getAccountInfo();
  const limits = account.limits;
  let asked = 0;
  let heldAlready = 0;
  for (const stream of definitions) {
    const config = streamConfig(host, stream);
    const setting = SIZE_SETTING[stream.purpose];
    if (config.max_bytes <= 0) continue;
    if (limits.storage_max_stream_bytes > 0 && config.max_bytes > limits.storage_max_stream_bytes) {
      throw new StreamStorageError(
        config.name,
        setting,
        `${mib(config.max_bytes)} asked, NATS allows at most ${mib(limits.storage_max_stream_bytes)} per stream`,
      );
    }
    asked += config.max_bytes * config.num_replicas;
    const existing = await existingStream(host.manager, config.name);
    if (existing && existing.max_bytes > 0) heldAlready += existing.max_bytes * (existing.num_replicas || 1);
  }
  if (limits.max_storage > 0) {
    // Servers from 2.10 report what every stream reserves; older ones do not, and then only ours are counted.
    const reserved = (account as { reserved_storage?: number }).reserved_storage ?? heldAlready;
    const room = limits.max_storage - reserved + heldAlready;
    if (asked > room) {
      throw new StreamStorageError(
        host.streamName('*'),
        'EVENT_STREAM_MAX_MIB (and DEAD_LETTER_STREAM_MAX_MIB)',
        `the streams ask ${mib(asked)}, the account has ${mib(Math.max(0, room))} of ${mib(limits.max_storage)} left`,
      );
    }
  }
  for (const stream of definitions) await ensureStream(host, stream);
}

/**
 * JetStream's "no suitable peers for placement": a cluster whose meta leader is elected but has not yet heard from
 * enough of its nodes (one still joining) cannot place a replicated stream, and can a few seconds later. A stream
 * asking more replicas than the cluster has nodes gets the same answer for good: asked again, it fails when the
 * patience runs out, with that answer.
 */
const NO_PEERS_FOR_PLACEMENT = 10005;

/**
 * JetStream did not answer, or answered that it cannot yet (a cluster still electing its leaders or counting its
 * nodes, or busy creating replicated streams for many clients at once): worth asking again, unlike a refusal.
 */
export function isJetStreamUnanswered(err: unknown): boolean {
  if (err instanceof TimeoutError || err instanceof NoRespondersError) return true;
  if (err instanceof JetStreamApiError && err.code === NO_PEERS_FOR_PLACEMENT) return true;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof TimeoutError || cause instanceof NoRespondersError) return true;
  return err instanceof Error && /^timeout$|temporarily unavailable/i.test(err.message);
}

/**
 * `step`, asked again while JetStream does not answer, until `untilMs` has passed (0: asked once). Many processes
 * starting together on a new three-node cluster (containers:up with NATS_NODES=3) found their first JetStream
 * requests unanswered and exited; asking again a few seconds later works. A refusal (a ceiling that does not fit)
 * still fails at once.
 */
export async function askPatiently<T>(step: () => Promise<T>, untilMs: number, logger: Logger, what: string): Promise<T> {
  const deadline = Date.now() + untilMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const wait = Math.min(5_000, 500 * 2 ** attempt);
      if (!isJetStreamUnanswered(err) || Date.now() + wait > deadline) throw err;
      logger.warn('JetStream did not answer; asking again', { what, attempt, waitMs: wait, error: (err as Error).message });
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** `ensureStreams`, asked again while JetStream does not answer, for at most `untilMs` (start-up). */
export function ensureStreamsPatiently(host: StreamHost, streams: Iterable<StreamDefinition>, untilMs: number): Promise<void> {
  const definitions = [...streams];
  return askPatiently(() => ensureStreams(host, definitions), untilMs, host.logger, 'the stream check');
}

/**
 * The narrow views of the bus that its functions take (issue 36): `EventBus` implements them all and delegates to
 * publish.ts, consume.ts and outbox.ts, which therefore never import it back (no import cycle), and a test may hand
 * them anything that has these members.
 */

export interface PublishOptions {
  /** The HTTP request that caused the event: sent as the `x-request-id` header, read into the consumers' logs. */
  requestId?: string;
  /** The trace stored with an outbox event; an empty one starts a new trace. */
  trace?: TraceCarrier;
  /**
   * Sends the message this many times at once under its one id and takes the first ack (the stream stores it
   * once): the outbox relay's way past a returning stream leader of nats-server before 2.10.12 that drops
   * proposals unanswered (see outbox.ts). 1 when absent.
   */
  copies?: number;
}

/** Where a message is published: the JetStream client and the prefix of subjects. */
export interface PublishHost {
  readonly jetstream: JetStreamClient;
  subject(name: string): string;
}

/** What publishes one message and waits for its ack (the outbox relay's view of the bus). */
export interface EventPublisher {
  publish(subject: string, payload: unknown, messageId: string, options?: PublishOptions): Promise<void>;
}

/** What a durable or ordered consumer needs of the bus. */
export interface ConsumeHost extends PublishHost {
  readonly connection: NatsConnection;
  readonly manager: JetStreamManager;
  readonly logger: Logger;
  /** How long a consumer's set-up asks JetStream again while it does not answer (0: once). */
  readonly patienceMs: number;
  streamName(name: string): string;
  durableName(durable: string): string;
  ensureStream(stream: StreamDefinition): Promise<void>;
  resetConsumer(stream: string, durable: string): Promise<boolean>;
}
