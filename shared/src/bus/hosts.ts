import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../core/telemetry';
import type { TraceCarrier } from '../core/telemetry';
import type { StreamDefinition } from './streams';

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
