import {
  AckPolicy,
  DeliverPolicy,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  connect,
  nanos,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
} from 'nats';
import type { z } from 'zod';
import type { Logger } from './logger';

const codec = JSONCodec();
const DEFAULT_BACKOFF_MS = [1_000, 5_000, 15_000, 30_000, 60_000];

/** The streams, one per producer. Consumers ensure them too, so start order never matters. */
export const StreamDefinitions = {
  ACCOUNTS: { subjects: ['accounts.>'], maxMsgsPerSubject: 5 },
  COMMUNITY: { subjects: ['community.>'], maxMsgsPerSubject: -1 },
  RECORDS: { subjects: ['records.>'], maxMsgsPerSubject: -1 },
  HOUSES: { subjects: ['houses.>'], maxMsgsPerSubject: -1 },
} as const;
export type StreamName = keyof typeof StreamDefinitions;

export interface EventBusOptions {
  url: string;
  /** Namespaces subjects, streams and durable consumers; empty in production. */
  prefix?: string;
  /** Connection name shown by the server. */
  name: string;
  logger: Logger;
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
  handle: (data: z.output<S>, meta: { subject: string; redelivered: boolean; seq: number }) => Promise<void>;
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
    const bus = new EventBus(connection, connection.jetstream({ timeout: 5_000 }), manager, options.prefix ?? '', options.logger);
    void bus.watchStatus();
    return bus;
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') this.logger.warn('nats connection', { status: status.type });
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

  async ensureStream(stream: StreamName): Promise<void> {
    const definition = StreamDefinitions[stream];
    const config = {
      name: this.streamName(stream),
      subjects: definition.subjects.map((s) => this.subject(s)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_msgs_per_subject: definition.maxMsgsPerSubject,
      duplicate_window: nanos(2 * 60_000),
    };
    try {
      await this.manager.streams.info(config.name);
      await this.manager.streams.update(config.name, config);
    } catch (err) {
      if (!String((err as Error).message).includes('not found')) throw err;
      await this.manager.streams.add(config);
    }
  }

  /** Publishes and waits for the stream's ack; a repeated `messageId` is dropped by the server. */
  async publish(subject: string, payload: unknown, messageId: string): Promise<void> {
    await this.jetstream.publish(this.subject(subject), codec.encode(payload), { msgID: messageId, timeout: 5_000 });
  }

  async consume<S extends z.ZodType>(options: ConsumeOptions<S>): Promise<RunningConsumer> {
    await this.ensureStream(options.stream);
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
          for await (const msg of messages) await this.dispatch(msg, options);
        } catch (err) {
          if (!stopped && !this.connection.isClosed() && !this.connection.isDraining())
            this.logger.warn('consumer loop restarting', { durable, error: (err as Error).message });
        }
        if (!stopped && !this.connection.isClosed() && !this.connection.isDraining()) await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    const done = loop();
    return {
      stop: async () => {
        stopped = true;
        await messages?.close();
        await done;
      },
    };
  }

  private async dispatch<S extends z.ZodType>(msg: JsMsg, options: ConsumeOptions<S>): Promise<void> {
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      raw = undefined;
    }
    const parsed = options.schema.safeParse(raw);
    if (!parsed.success) {
      this.logger.error('invalid event payload terminated', { subject: msg.subject, seq: msg.seq, issue: parsed.error.issues[0]?.message });
      msg.term();
      return;
    }
    try {
      await options.handle(parsed.data, { subject: msg.subject, redelivered: msg.redelivered, seq: msg.seq });
      msg.ack();
    } catch (err) {
      this.logger.warn('event handling failed; will be redelivered', { subject: msg.subject, seq: msg.seq, error: (err as Error).message });
      const delays = options.backoffMs ?? DEFAULT_BACKOFF_MS;
      msg.nak(delays[Math.min(msg.info.redeliveryCount - 1, delays.length - 1)]);
    }
  }

  /** Deletes a durable consumer so the next `consume` creates it afresh (a projection rebuild). */
  async resetConsumer(stream: StreamName, durable: string): Promise<boolean> {
    return this.manager.consumers.delete(this.streamName(stream), this.durableName(durable)).catch(() => false);
  }

  /** Removes this bus's prefixed streams (tests clean up after themselves). */
  async deleteStreams(): Promise<void> {
    if (!this.prefix) throw new Error('refusing to delete unprefixed streams');
    for (const stream of Object.keys(StreamDefinitions) as StreamName[]) {
      await this.manager.streams.delete(this.streamName(stream)).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.connection.drain().catch(() => this.connection.close());
  }
}
