import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  Events,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  connect,
  headers as natsHeaders,
  nanos,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type StreamConfig,
} from 'nats';
import type { z } from 'zod';
import { requestContext } from './context';
import { DEAD_LETTER_SUBJECT, DeadLetterHeaders, toDeadLetter, type DeadLetter, type DeadLetterReason } from './dead-letters';
import { REQUEST_ID_HEADER } from './http';
import type { Logger } from './logger';
import { inMessagingSpan, injectTraceContext, type TraceCarrier } from './tracing';
import { eventsDeadLettered, eventsDelivered, eventsFailed, eventsRedelivered, eventsTerminated, registerConsumerLagSource } from './metrics';

const codec = JSONCodec();
const DEFAULT_BACKOFF_MS = [1_000, 5_000, 15_000, 30_000, 60_000];

/**
 * The streams, one per producer, plus the dead letters. Consumers ensure them too, so start order never
 * matters. `purpose` picks the limits (see `streamLimits`).
 */
const StreamDefinitions = {
  ACCOUNTS: { subjects: ['accounts.>'], purpose: 'snapshots' },
  COMMUNITY: { subjects: ['community.>'], purpose: 'events' },
  RECORDS: { subjects: ['records.>'], purpose: 'events' },
  HOUSES: { subjects: ['houses.>'], purpose: 'events' },
  SESSIONS: { subjects: ['sessions.>'], purpose: 'revocations' },
  DEAD_LETTERS: { subjects: [`${DEAD_LETTER_SUBJECT}.>`], purpose: 'deadLetters' },
} as const;
export type StreamName = keyof typeof StreamDefinitions;
export type StreamPurpose = (typeof StreamDefinitions)[StreamName]['purpose'];

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
const DEFAULT_STREAM_SETTINGS: StreamSettings = {
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

/** JetStream's answer when a stream's byte ceiling does not fit in what its store has left (err_code 10047). */
function isInsufficientStorage(err: unknown): boolean {
  const apiError = (err as { api_error?: { err_code?: number } }).api_error;
  return apiError?.err_code === 10047 || /insufficient storage/i.test(String((err as Error).message));
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

export interface EventBusOptions {
  url: string;
  /** Namespaces subjects, streams and durable consumers; empty in production. */
  prefix?: string;
  /** Connection name shown by the server. */
  name: string;
  logger: Logger;
  /** Replicas and retention of the streams this bus ensures; `DEFAULT_STREAM_SETTINGS` when absent. */
  streams?: Partial<StreamSettings>;
}

export interface ConsumeOptions<S extends z.ZodType> {
  stream: StreamName;
  /** Durable consumer name; survives restarts, shared by instances of one service. */
  durable: string;
  filterSubject: string;
  schema: S;
  /** `last_per_subject` for snapshot projections a new instance rebuilds from. */
  deliverPolicy?: 'all' | 'last_per_subject' | 'new';
  maxDeliver?: number;
  /** Redelivery delays in ms after a failed handling (nak with delay), by attempt. */
  backoffMs?: number[];
  /** How long a delivered message may stay unacknowledged before the server redelivers it. */
  ackWaitMs?: number;
  /** Runs inside the request-id context of the HTTP request that caused the event (when it carried one). */
  handle: (data: z.output<S>, meta: { subject: string; redelivered: boolean; seq: number; requestId?: string }) => Promise<void>;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * JetStream publishing and durable consumption with the project's rules: every message carries an id
 * (server-side de-duplication), consumers ack only after their write, invalid payloads are terminated.
 */
export class EventBus {
  private constructor(
    readonly connection: NatsConnection,
    private readonly jetstream: JetStreamClient,
    private readonly manager: JetStreamManager,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly streamSettings: StreamSettings,
  ) {}

  static async connect(options: EventBusOptions): Promise<EventBus> {
    const connection = await connect({
      servers: options.url.split(',').map((s) => s.trim()),
      name: options.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: true,
    });
    const manager = await connection.jetstreamManager({ timeout: 10_000 });
    const settings = { ...DEFAULT_STREAM_SETTINGS, ...options.streams };
    const bus = new EventBus(connection, connection.jetstream({ timeout: 5_000 }), manager, options.prefix ?? '', options.logger, settings);
    void bus.watchStatus();
    return bus;
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === Events.Disconnect || status.type === Events.Reconnect) this.logger.warn('nats connection', { status: status.type });
    }
  }

  subject(name: string): string {
    return this.prefix ? `${this.prefix}.${name}` : name;
  }

  streamName(stream: StreamName): string {
    return this.prefix ? `${this.prefix.toUpperCase().replace(/-/g, '_')}_${stream}` : stream;
  }

  private durableName(durable: string): string {
    return this.prefix ? `${this.prefix}_${durable}` : durable;
  }

  private streamConfig(stream: StreamName) {
    const definition = StreamDefinitions[stream];
    return {
      name: this.streamName(stream),
      subjects: definition.subjects.map((s) => this.subject(s)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: this.streamSettings.replicas,
      duplicate_window: nanos(2 * 60_000),
      ...streamLimits(definition.purpose, this.streamSettings),
    };
  }

  /**
   * Creates the stream, or brings an existing one to the current settings (a changed ceiling or retention
   * updates it in place). A ceiling the broker has no room for fails with a `StreamStorageError` naming the
   * setting.
   */
  async ensureStream(stream: StreamName): Promise<void> {
    const config = this.streamConfig(stream);
    const existing = await this.existingStream(config.name);
    try {
      if (!existing) {
        await this.manager.streams.add(config);
        return;
      }
      await this.manager.streams.update(config.name, config);
    } catch (err) {
      if (isInsufficientStorage(err)) {
        throw new StreamStorageError(
          config.name,
          SIZE_SETTING[StreamDefinitions[stream].purpose],
          config.max_bytes > 0
            ? `${mib(config.max_bytes)} × ${config.num_replicas} replica(s) asked, NATS answered "${(err as Error).message}"`
            : `NATS answered "${(err as Error).message}"`,
        );
      }
      if (!existing) throw err;
      // What NATS refuses to change in place (e.g. the storage type, more replicas than the cluster has) leaves
      // the stream as it was, said loudly, rather than keeping the service down.
      this.logger.warn('stream keeps its earlier configuration', { stream: config.name, error: (err as Error).message });
    }
  }

  private existingStream(name: string): Promise<StreamConfig | undefined> {
    return this.manager.streams.info(name).then(
      (info) => info.config,
      (err: Error) => {
        if (!String(err.message).includes('not found')) throw err;
        return undefined;
      },
    );
  }

  /**
   * Start-up check of every stream of the system: the ceilings are first compared with what the broker reports
   * for this account (a per-stream maximum, a storage limit), then each stream is created or updated, so a
   * ceiling that does not fit stops the process with an error naming its setting before it serves anything.
   */
  async ensureStreams(): Promise<void> {
    const account = await this.manager.getAccountInfo();
    const limits = account.limits;
    const streams = Object.keys(StreamDefinitions) as StreamName[];
    let asked = 0;
    let heldAlready = 0;
    for (const stream of streams) {
      const config = this.streamConfig(stream);
      const setting = SIZE_SETTING[StreamDefinitions[stream].purpose];
      if (config.max_bytes <= 0) continue;
      if (limits.storage_max_stream_bytes > 0 && config.max_bytes > limits.storage_max_stream_bytes) {
        throw new StreamStorageError(
          config.name,
          setting,
          `${mib(config.max_bytes)} asked, NATS allows at most ${mib(limits.storage_max_stream_bytes)} per stream`,
        );
      }
      asked += config.max_bytes * config.num_replicas;
      const existing = await this.existingStream(config.name);
      if (existing && existing.max_bytes > 0) heldAlready += existing.max_bytes * (existing.num_replicas || 1);
    }
    if (limits.max_storage > 0) {
      // Servers from 2.10 report what every stream reserves; older ones do not, and then only ours are counted.
      const reserved = (account as { reserved_storage?: number }).reserved_storage ?? heldAlready;
      const room = limits.max_storage - reserved + heldAlready;
      if (asked > room) {
        throw new StreamStorageError(
          this.streamName('COMMUNITY').replace(/COMMUNITY$/, '*'),
          'EVENT_STREAM_MAX_MIB (and DEAD_LETTER_STREAM_MAX_MIB)',
          `the streams ask ${mib(asked)}, the account has ${mib(Math.max(0, room))} of ${mib(limits.max_storage)} left`,
        );
      }
    }
    for (const stream of streams) await this.ensureStream(stream);
  }

  /** The stream settings this bus applies (replicas, retention). */
  get settings(): StreamSettings {
    return { ...this.streamSettings };
  }

  /**
   * Publishes and waits for the stream's ack; a repeated `messageId` is dropped by the server. `requestId`
   * (the HTTP request that caused the event) travels in the `x-request-id` header to the consumers' logs.
   * A publish span continues `trace` (stored with an outbox event; an empty one starts a new trace) or, without
   * it, the active trace, and the message carries its `traceparent` (only when tracing is on).
   */
  async publish(subject: string, payload: unknown, messageId: string, options: { requestId?: string; trace?: TraceCarrier } = {}): Promise<void> {
    const stored = options.trace;
    await inMessagingSpan('publish', subject, stored ? { get: (key: string) => stored[key] } : undefined, async (span, active) => {
      const headers = natsHeaders();
      if (options.requestId) headers.set(REQUEST_ID_HEADER, options.requestId);
      if (span.isRecording()) injectTraceContext(active, headers);
      await this.jetstream.publish(this.subject(subject), codec.encode(payload), {
        msgID: messageId,
        timeout: 5_000,
        headers: headers.keys().length > 0 ? headers : undefined,
      });
    });
  }

  async consume<S extends z.ZodType>(options: ConsumeOptions<S>): Promise<RunningConsumer> {
    await this.ensureStream(options.stream);
    await this.ensureStream('DEAD_LETTERS');
    const stream = this.streamName(options.stream);
    const durable = this.durableName(options.durable);
    const maxDeliver = options.maxDeliver ?? 20;
    const deliverPolicy =
      options.deliverPolicy === 'last_per_subject' ? DeliverPolicy.LastPerSubject : options.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All;
    try {
      await this.manager.consumers.info(stream, durable);
    } catch {
      await this.manager.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: deliverPolicy,
        filter_subject: this.subject(options.filterSubject),
        max_deliver: maxDeliver,
        // No consumer-level `backoff`: with it the server takes backoff[0] as every delivery's ack wait, shorter
        // than a pulled batch may need. A failed handling naks with its own delay instead.
        ack_wait: nanos(options.ackWaitMs ?? 30_000),
      });
    }
    const consumer = await this.jetstream.consumers.get(stream, durable);
    let messages: ConsumerMessages | undefined;
    let stopped = false;
    const loop = async (): Promise<void> => {
      // consume() survives reconnects itself; the outer loop covers the rare case where it ends on an error.
      while (!stopped && !this.connection.isClosed() && !this.connection.isDraining()) {
        try {
          messages = await consumer.consume({ max_messages: 64 });
          // stop() may have come while consume() was being set up: it had no messages to close then.
          if (stopped) {
            await messages.close();
            break;
          }
          for await (const msg of messages) await this.dispatch(msg, options, maxDeliver);
        } catch (err) {
          if (!stopped && !this.connection.isClosed() && !this.connection.isDraining())
            this.logger.warn('consumer loop restarting', { durable, error: (err as Error).message });
        }
        if (!stopped && !this.connection.isClosed() && !this.connection.isDraining()) await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    const done = loop();
    const unregisterLag = registerConsumerLagSource({
      stream: options.stream,
      consumer: options.durable,
      pending: async () => {
        const info = await this.manager.consumers.info(stream, durable);
        return info.num_pending + info.num_ack_pending;
      },
    });
    return {
      stop: async () => {
        unregisterLag();
        stopped = true;
        await messages?.close();
        await done;
      },
    };
  }

  /**
   * Reads a stream's subject from a point in time on with an ordered (ephemeral, unacknowledged) consumer, so
   * every process sees every message, including those published before it started; it follows reconnects.
   * For state each process keeps in memory (revoked sessions), not for work done once per service.
   */
  async follow(stream: StreamName, filterSubject: string, since: Date, handle: (data: unknown) => void): Promise<RunningConsumer> {
    await this.ensureStream(stream);
    const consumer = await this.jetstream.consumers.get(this.streamName(stream), {
      filterSubjects: this.subject(filterSubject),
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: since.toISOString(),
    });
    const messages = await consumer.consume();
    const done = (async () => {
      for await (const msg of messages) {
        try {
          handle(msg.json());
        } catch (err) {
          this.logger.warn('followed message not handled', { subject: msg.subject, error: (err as Error).message });
        }
      }
    })();
    return {
      stop: async () => {
        await messages.close();
        await done;
      },
    };
  }

  /** Hands one message to its handler inside the request-id context the message carries. */
  private dispatch<S extends z.ZodType>(msg: JsMsg, options: ConsumeOptions<S>, maxDeliver: number): Promise<void> {
    const labels = { stream: options.stream, consumer: options.durable };
    eventsDelivered.inc(labels);
    if (msg.redelivered) eventsRedelivered.inc(labels);
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
    // The consumer's span continues the trace of the publish (the `traceparent` header) when tracing is on.
    const handle = () => inMessagingSpan('process', msg.subject, msg.headers, () => this.handleMessage(msg, options, maxDeliver, requestId));
    return requestId ? requestContext.run({ requestId }, handle) : handle();
  }

  private async handleMessage<S extends z.ZodType>(msg: JsMsg, options: ConsumeOptions<S>, maxDeliver: number, requestId: string | undefined): Promise<void> {
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      raw = undefined;
    }
    const parsed = options.schema.safeParse(raw);
    if (!parsed.success) {
      this.logger.error('invalid event payload terminated', { subject: msg.subject, seq: msg.seq, issue: parsed.error.issues[0]?.message });
      await this.terminate(msg, options, 'invalid_payload', parsed.error.issues[0]?.message ?? 'invalid payload');
      return;
    }
    try {
      await options.handle(parsed.data, { subject: msg.subject, redelivered: msg.redelivered, seq: msg.seq, requestId });
      msg.ack();
      // One line per handled event; inside the request-id context it carries the id of the request behind it.
      this.logger.info('event handled', { subject: msg.subject, seq: msg.seq, consumer: options.durable, deliveries: msg.info.redeliveryCount });
    } catch (err) {
      eventsFailed.inc({ stream: options.stream, consumer: options.durable });
      // redeliveryCount counts deliveries (1 on the first): this was the last one the server will make.
      if (msg.info.redeliveryCount >= maxDeliver) {
        await this.terminate(msg, options, 'max_deliveries', (err as Error).message);
        return;
      }
      this.logger.warn('event handling failed; will be redelivered', { subject: msg.subject, seq: msg.seq, error: (err as Error).message });
      const delays = options.backoffMs ?? DEFAULT_BACKOFF_MS;
      msg.nak(delays[Math.min(msg.info.redeliveryCount - 1, delays.length - 1)]);
    }
  }

  /**
   * Gives up on a message: a copy goes to the dead-letter stream (subject `deadletter.<consumer>`, the
   * original bytes and request id, and headers saying where it came from and why), then it is terminated.
   * The copy is made by the consumer that holds the message and its error, not from the max-deliveries
   * advisory, which is a core NATS message lost when no one listens at that instant.
   */
  private async terminate<S extends z.ZodType>(msg: JsMsg, options: ConsumeOptions<S>, reason: DeadLetterReason, error: string): Promise<void> {
    const labels = { stream: options.stream, consumer: options.durable };
    eventsTerminated.inc({ ...labels, reason });
    const headers = natsHeaders();
    const requestId = msg.headers?.get(REQUEST_ID_HEADER);
    if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
    headers.set(DeadLetterHeaders.stream, options.stream);
    headers.set(DeadLetterHeaders.subject, msg.subject);
    headers.set(DeadLetterHeaders.sequence, String(msg.seq));
    headers.set(DeadLetterHeaders.consumer, options.durable);
    headers.set(DeadLetterHeaders.reason, reason);
    headers.set(DeadLetterHeaders.deliveries, String(msg.info.redeliveryCount));
    headers.set(DeadLetterHeaders.error, error.replace(/[\r\n]+/g, ' ').slice(0, 500));
    const details = { subject: msg.subject, seq: msg.seq, consumer: options.durable, reason, deliveries: msg.info.redeliveryCount, error };
    try {
      await this.jetstream.publish(this.subject(`${DEAD_LETTER_SUBJECT}.${options.durable}`), msg.data, {
        headers,
        // One dead letter per message and consumer, even if this runs twice.
        msgID: `${msg.info.stream}:${msg.seq}:${options.durable}`,
        timeout: 5_000,
      });
      eventsDeadLettered.inc({ ...labels, reason });
      this.logger.error('event dead-lettered', details);
    } catch (err) {
      // The server will not deliver it again: the log line is what is left of it.
      this.logger.error('event terminated; dead letter not stored', { ...details, payload: msg.string(), deadLetterError: (err as Error).message });
    }
    msg.term();
  }

  /** The dead letters kept in the stream, oldest first (for operators' tools and tests). */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const name = this.streamName('DEAD_LETTERS');
    const info = await this.manager.streams.info(name).catch(() => undefined);
    if (!info || info.state.messages === 0) return [];
    const letters: DeadLetter[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && letters.length < limit; seq++) {
      const stored = await this.manager.streams.getMessage(name, { seq }).catch(() => undefined);
      if (stored) letters.push(toDeadLetter(stored));
    }
    return letters;
  }

  /** Deletes a durable consumer so the next `consume` creates it afresh (a projection rebuild). */
  async resetConsumer(stream: StreamName, durable: string): Promise<boolean> {
    return this.manager.consumers.delete(this.streamName(stream), this.durableName(durable)).catch(() => false);
  }

  /**
   * Removes this bus's prefixed streams, with their consumers (tests, benchmarks and `npm run clean` clean up
   * after themselves); gives the names of those that existed.
   */
  async deleteStreams(): Promise<string[]> {
    if (!this.prefix) throw new Error('refusing to delete unprefixed streams');
    const deleted: string[] = [];
    for (const stream of Object.keys(StreamDefinitions) as StreamName[]) {
      const name = this.streamName(stream);
      if (await this.manager.streams.delete(name).catch(() => false)) deleted.push(name);
    }
    return deleted;
  }

  async close(): Promise<void> {
    await this.connection.drain().catch(() => this.connection.close());
  }
}
