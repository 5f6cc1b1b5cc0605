import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { Logger } from '../core/telemetry';
import { followEvent, startConsumer, type RunningConsumer } from './consume';
import { natsClientOptions } from './nats-client';
import { deadLetterStream, toDeadLetter, type DeadLetter } from './dead-letters';
import type { EventConsumer, EventData, EventDefinition } from './events';
import type { ConsumeHost, EventPublisher } from './streams';
import { publishMessage, type PublishOptions } from './publish';
import {
  DEFAULT_STREAM_SETTINGS,
  ensureStream,
  ensureStreams,
  askPatiently,
  ensureStreamsPatiently,
  type StreamDefinition,
  type StreamHost,
  type StreamSettings,
} from './streams';

export interface EventBusOptions {
  url: string;
  /** Namespaces subjects, streams and durable consumers; empty in production. */
  prefix?: string;
  /** Connection name shown by the server. */
  name: string;
  logger: Logger;
  /** Replicas and retention of the streams this bus ensures; `DEFAULT_STREAM_SETTINGS` when absent. */
  streams?: Partial<StreamSettings>;
  /**
   * How long JetStream may go unanswered at connect and while consumers are set up before it fails (a new cluster's
   * election); 0 or absent: asked once.
   */
  patienceMs?: number;
}

/**
 * A process's connection to NATS JetStream, with the project's rules: every message carries an id (server-side
 * de-duplication), consumers ack only after their write, what they give up on goes to the dead letters. The
 * prefix namespaces subjects, streams and durables so tests share one server.
 */
export class EventBus implements StreamHost, ConsumeHost, EventPublisher {
  private constructor(
    readonly connection: NatsConnection,
    readonly jetstream: JetStreamClient,
    readonly manager: JetStreamManager,
    private readonly prefix: string,
    readonly logger: Logger,
    private readonly streamSettings: StreamSettings,
    /** How long start-up steps (a consumer's set-up) ask JetStream again while it does not answer (EventBusOptions). */
    readonly patienceMs: number,
  ) {}

  static async connect(options: EventBusOptions): Promise<EventBus> {
    const connection = await connect(natsClientOptions(options.url, options.name));
    // A connection whose JetStream does not answer (a new cluster still electing its leader) is asked again for
    // `patienceMs`, then not left open.
    const manager = await askPatiently(
      () => jetstreamManager(connection, { timeout: 10_000 }),
      options.patienceMs ?? 0,
      options.logger,
      'the JetStream check at connect',
    ).catch(async (err: unknown) => {
      await connection.close();
      throw err;
    });
    const settings = { ...DEFAULT_STREAM_SETTINGS, ...options.streams };
    const bus = new EventBus(
      connection,
      jetstream(connection, { timeout: 5_000 }),
      manager,
      options.prefix ?? '',
      options.logger,
      settings,
      options.patienceMs ?? 0,
    );
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

  /** The stream's name on the broker: `COMMUNITY`, or `T1_COMMUNITY` under the prefix `t1`. */
  streamName(name: string): string {
    return this.prefix ? `${this.streamPrefix}${name}` : name;
  }

  private get streamPrefix(): string {
    return `${this.prefix.toUpperCase().replace(/-/g, '_')}_`;
  }

  durableName(durable: string): string {
    return this.prefix ? `${this.prefix}_${durable}` : durable;
  }

  /** The stream settings this bus applies (replicas, retention). */
  get settings(): StreamSettings {
    return { ...this.streamSettings };
  }

  /** Creates the stream or brings it to the current settings (see streams.ts). */
  ensureStream(stream: StreamDefinition): Promise<void> {
    return ensureStream(this, stream);
  }

  /** These streams, checked against the broker's limits first (see streams.ts). */
  ensureStreams(streams: Iterable<StreamDefinition>): Promise<void> {
    return ensureStreams(this, streams);
  }

  /** The same, asked again while JetStream does not answer, for at most `untilMs` (start-up; see streams.ts). */
  ensureStreamsPatiently(streams: Iterable<StreamDefinition>, untilMs: number): Promise<void> {
    return ensureStreamsPatiently(this, streams, untilMs);
  }

  /**
   * Publishes and waits for the stream's ack; a repeated `messageId` is dropped by the server (see publish.ts).
   * `copies` is honoured only by a server that may drop a returning leader's proposals (`dropsProposals`).
   */
  publish(subject: string, payload: unknown, messageId: string, options: PublishOptions = {}): Promise<void> {
    return publishMessage(this, subject, payload, messageId, this.dropsProposals ? options : { ...options, copies: 1 });
  }

  /**
   * Whether the server this connection is on is a nats-server before 2.10.12, whose stream leader, leading again
   * after fewer new messages than the stream has counted duplicates, drops that many proposals without an answer
   * (its `clseq` is not reset on losing the lead; fixed by nats-io/nats-server 80a5675, "Fix correcting clseq drift
   * on high clfs"). An unknown version counts as old.
   */
  get dropsProposals(): boolean {
    const [major = 0, minor = 0, patch = 0] = (this.connection.info?.version ?? '0.0.0').split(/[.-]/).map(Number);
    return major < 2 || (major === 2 && (minor < 10 || (minor === 10 && patch < 12)));
  }

  /** Starts a durable consumer (see consume.ts). */
  consume<E extends EventDefinition>(consumer: EventConsumer<E>): Promise<RunningConsumer> {
    return startConsumer(this, consumer);
  }

  /** Every process reads `event` from `since` on, unacknowledged (see consume.ts). */
  follow<E extends EventDefinition>(event: E, since: Date, handle: (data: EventData<E>) => void): Promise<RunningConsumer> {
    return followEvent(this, event, since, handle);
  }

  /** The dead letters kept in the stream, oldest first (for operators' tools and tests). */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const name = this.streamName(deadLetterStream.name);
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
  async resetConsumer(stream: string, durable: string): Promise<boolean> {
    return this.manager.consumers.delete(this.streamName(stream), this.durableName(durable)).catch(() => false);
  }

  /**
   * Removes this bus's prefixed streams, with their consumers (tests, benchmarks and `npm run clean` clean up
   * after themselves); gives the names of those that existed. Shared code knows no producer's streams, so they are
   * found on the broker: named with this prefix's `T1_`, every subject under its `t1.` (so the prefix `t1` never
   * takes `t1-x`'s `T1_X_...` streams).
   */
  async deleteStreams(): Promise<string[]> {
    if (!this.prefix) throw new Error('refusing to delete unprefixed streams');
    const ours: string[] = [];
    for await (const info of this.manager.streams.list()) {
      const { name, subjects = [] } = info.config;
      if (name.startsWith(this.streamPrefix) && subjects.length > 0 && subjects.every((s) => s.startsWith(`${this.prefix}.`))) ours.push(name);
    }
    const deleted: string[] = [];
    for (const name of ours.sort()) {
      if (await this.manager.streams.delete(name).catch(() => false)) deleted.push(name);
    }
    return deleted;
  }

  async close(): Promise<void> {
    await this.connection.drain().catch(() => this.connection.close());
  }
}
