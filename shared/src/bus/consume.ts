import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos } from '@nats-io/nats-core';
import { requestContext } from '../core/telemetry';
import { REQUEST_ID_HEADER } from '../core/edge';
import { eventsDeadLettered, eventsDelivered, eventsFailed, eventsRedelivered, eventsTerminated, registerConsumerLagSource } from '../core/telemetry';
import { inMessagingSpan } from '../core/telemetry';
import type { ConsumeHost } from './streams';
import { askPatiently } from './streams';
import { DEAD_LETTER_SUBJECT, DeadLetterHeaders, deadLetterStream, type DeadLetterReason } from './dead-letters';
import type { EventConsumer, EventData, EventDefinition } from './events';

const DEFAULT_BACKOFF_MS = [1_000, 5_000, 15_000, 30_000, 60_000];
const DEFAULT_MAX_DELIVER = 20;
const DEFAULT_ACK_WAIT_MS = 30_000;

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * Starts consumers in order; if one cannot start, those already started are stopped before the error is
 * thrown. The result stops them all, the last started first.
 */
export async function startConsumers(bus: ConsumeHost, consumers: readonly EventConsumer[]): Promise<RunningConsumer> {
  const running: RunningConsumer[] = [];
  const stopAll = async () => {
    for (const consumer of running.splice(0).reverse()) await consumer.stop();
  };
  try {
    for (const consumer of consumers) running.push(await startConsumer(bus, consumer));
  } catch (err) {
    await stopAll();
    throw err;
  }
  return { stop: stopAll };
}

export async function startConsumer<E extends EventDefinition>(bus: ConsumeHost, consumer: EventConsumer<E>): Promise<RunningConsumer> {
  const { event } = consumer;
  // Start-up steps are asked again while JetStream does not answer (a cluster still forming); each is idempotent.
  const streamsReady = async () => {
    await bus.ensureStream(event.stream);
    await bus.ensureStream(deadLetterStream);
  };
  await askPatiently(streamsReady, bus.patienceMs, bus.logger, `the streams of ${consumer.durable}`);
  if (await consumer.replayWhen?.()) await bus.resetConsumer(event.stream.name, consumer.durable);
  const stream = bus.streamName(event.stream.name);
  const durable = bus.durableName(consumer.durable);
  const deliverPolicy =
    consumer.deliverPolicy === 'last_per_subject' ? DeliverPolicy.LastPerSubject : consumer.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All;
  const pulled = await askPatiently(
    async () => {
      try {
        await bus.manager.consumers.info(stream, durable);
      } catch {
        await bus.manager.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: deliverPolicy,
          filter_subject: bus.subject(event.filter),
          max_deliver: consumer.maxDeliver ?? DEFAULT_MAX_DELIVER,
          // No consumer-level `backoff`: with it the server takes backoff[0] as every delivery's ack wait, shorter
          // than a pulled batch may need. A failed handling naks with its own delay instead.
          ack_wait: nanos(consumer.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
        });
      }
      return bus.jetstream.consumers.get(stream, durable);
    },
    bus.patienceMs,
    bus.logger,
    `the consumer ${durable}`,
  );
  const open = () => !bus.connection.isClosed() && !bus.connection.isDraining();
  let messages: ConsumerMessages | undefined;
  let stopped = false;
  const loop = async (): Promise<void> => {
    // consume() survives reconnects itself; the outer loop covers the rare case where it ends on an error.
    while (!stopped && open()) {
      try {
        // Pulls that expire after 5 s (heartbeats every 2.5 s) rather than the client's 30 s: in a NATS cluster the
        // consumer's leader may move to another node (its node lost or restarted), and a pull left on the old
        // leader is noticed only by its missed heartbeats; with the default that stalled delivery for up to a
        // minute in the scaled-out test (issue 37). The cost is one idle pull per consumer every 5 s.
        messages = await pulled.consume({ max_messages: 64, expires: 5_000 });
        // stop() may have come while consume() was being set up: it had no messages to close then.
        if (stopped) {
          await messages.close();
          break;
        }
        for await (const msg of messages) await dispatch(bus, consumer, msg);
      } catch (err) {
        if (!stopped && open()) bus.logger.warn('consumer loop restarting', { durable, error: (err as Error).message });
      }
      if (!stopped && open()) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const done = loop();
  const unregisterLag = registerConsumerLagSource({
    stream: event.stream.name,
    consumer: consumer.durable,
    pending: async () => {
      const info = await bus.manager.consumers.info(stream, durable);
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
 * Reads an event's subject from a point in time on with an ordered (ephemeral, unacknowledged) consumer, so
 * every process sees every message, including those published before it started; it follows reconnects.
 * For state each process keeps in memory (revoked sessions), not for work done once per service. A payload
 * the schema refuses is logged and skipped.
 *
 * The consumer reads the whole stream and skips what is older than `since`: one created with a start time
 * (`opt_start_time`) is never recreated once the broker has lost it (a NATS restart), because the client keeps
 * the start time beside the start sequence it resumes from and the server refuses the pair; the process would
 * then hear of nothing more until it restarts. The streams it is used on are short-lived (SESSIONS: 2 hours).
 */
export async function followEvent<E extends EventDefinition>(
  bus: ConsumeHost,
  event: E,
  since: Date,
  handle: (data: EventData<E>) => void,
): Promise<RunningConsumer> {
  const sinceNanos = BigInt(since.getTime()) * BigInt(1_000_000);
  const ordered = await askPatiently(
    async () => {
      await bus.ensureStream(event.stream);
      return bus.jetstream.consumers.get(bus.streamName(event.stream.name), { filter_subjects: bus.subject(event.filter), deliver_policy: DeliverPolicy.All });
    },
    bus.patienceMs,
    bus.logger,
    `following ${event.filter}`,
  );
  const messages = await ordered.consume();
  const done = (async () => {
    for await (const msg of messages) {
      if (msg.info.timestampNanos < sinceNanos) continue;
      try {
        const parsed = event.schema.safeParse(msg.json());
        if (!parsed.success) {
          bus.logger.warn('invalid followed event ignored', { subject: msg.subject, issue: parsed.error.issues[0]?.message });
          continue;
        }
        handle(parsed.data as EventData<E>);
      } catch (err) {
        bus.logger.warn('followed message not handled', { subject: msg.subject, error: (err as Error).message });
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
function dispatch(bus: ConsumeHost, consumer: EventConsumer, msg: JsMsg): Promise<void> {
  const labels = { stream: consumer.event.stream.name, consumer: consumer.durable };
  eventsDelivered.inc(labels);
  if (msg.redelivered) eventsRedelivered.inc(labels);
  const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
  // The consumer's span continues the trace of the publish (the `traceparent` header) when tracing is on.
  const handle = () => inMessagingSpan('process', msg.subject, msg.headers, () => handleMessage(bus, consumer, msg, requestId));
  return requestId ? requestContext.run({ requestId }, handle) : handle();
}

async function handleMessage(bus: ConsumeHost, consumer: EventConsumer, msg: JsMsg, requestId: string | undefined): Promise<void> {
  let raw: unknown;
  try {
    raw = msg.json();
  } catch {
    raw = undefined;
  }
  const parsed = consumer.event.schema.safeParse(raw);
  if (!parsed.success) {
    bus.logger.error('invalid event payload terminated', { subject: msg.subject, seq: msg.seq, issue: parsed.error.issues[0]?.message });
    await terminate(bus, consumer, msg, 'invalid_payload', parsed.error.issues[0]?.message ?? 'invalid payload');
    return;
  }
  const deliveries = msg.info.deliveryCount;
  try {
    await consumer.handle(parsed.data, { subject: msg.subject, redelivered: msg.redelivered, seq: msg.seq, deliveries, requestId });
    msg.ack();
    // One line per handled event; inside the request-id context it carries the id of the request behind it.
    bus.logger.info('event handled', { subject: msg.subject, seq: msg.seq, consumer: consumer.durable, deliveries });
  } catch (err) {
    eventsFailed.inc({ stream: consumer.event.stream.name, consumer: consumer.durable });
    // deliveryCount counts deliveries (1 on the first): this was the last one the server will make.
    if (deliveries >= (consumer.maxDeliver ?? DEFAULT_MAX_DELIVER)) {
      await terminate(bus, consumer, msg, 'max_deliveries', (err as Error).message);
      return;
    }
    bus.logger.warn('event handling failed; will be redelivered', { subject: msg.subject, seq: msg.seq, error: (err as Error).message });
    const delays = consumer.backoffMs ?? DEFAULT_BACKOFF_MS;
    msg.nak(delays[Math.min(deliveries - 1, delays.length - 1)]);
  }
}

/**
 * Gives up on a message: a copy goes to the dead-letter stream (subject `deadletter.<consumer>`, the
 * original bytes and request id, and headers saying where it came from and why), then it is terminated.
 * The copy is made by the consumer that holds the message and its error, not from the max-deliveries
 * advisory, which is a core NATS message lost when no one listens at that instant.
 */
async function terminate(bus: ConsumeHost, consumer: EventConsumer, msg: JsMsg, reason: DeadLetterReason, error: string): Promise<void> {
  const labels = { stream: consumer.event.stream.name, consumer: consumer.durable };
  eventsTerminated.inc({ ...labels, reason });
  const headers = natsHeaders();
  const requestId = msg.headers?.get(REQUEST_ID_HEADER);
  if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
  headers.set(DeadLetterHeaders.stream, consumer.event.stream.name);
  headers.set(DeadLetterHeaders.subject, msg.subject);
  headers.set(DeadLetterHeaders.sequence, String(msg.seq));
  headers.set(DeadLetterHeaders.consumer, consumer.durable);
  headers.set(DeadLetterHeaders.reason, reason);
  headers.set(DeadLetterHeaders.deliveries, String(msg.info.deliveryCount));
  headers.set(DeadLetterHeaders.error, error.replace(/[\r\n]+/g, ' ').slice(0, 500));
  const details = { subject: msg.subject, seq: msg.seq, consumer: consumer.durable, reason, deliveries: msg.info.deliveryCount, error };
  try {
    await bus.jetstream.publish(bus.subject(`${DEAD_LETTER_SUBJECT}.${consumer.durable}`), msg.data, {
      headers,
      // One dead letter per message and consumer, even if this runs twice.
      msgID: `${msg.info.stream}:${msg.seq}:${consumer.durable}`,
      timeout: 5_000,
    });
    eventsDeadLettered.inc({ ...labels, reason });
    bus.logger.error('event dead-lettered', details);
  } catch (err) {
    // The server will not deliver it again: the log line is what is left of it.
    bus.logger.error('event terminated; dead letter not stored', { ...details, payload: msg.string(), deadLetterError: (err as Error).message });
  }
  msg.term();
}
