import { randomUUID } from 'node:crypto';
import { TimeoutError } from '@nats-io/nats-core';
import { Schema, type Model } from 'mongoose';
import { currentRequestId } from '../core/telemetry';
import type { Logger } from '../core/telemetry';
import { registerOutboxSource, type OutboxBacklogSource } from '../core/telemetry';
import { currentTraceCarrier, type TraceCarrier } from '../core/telemetry';
import type { EventPublisher } from './streams';
import type { StreamDefinition } from './streams';
import type { WrittenOutboxDocument } from '../core/operations';

/**
 * Transactional outbox without transactions: the event is stored inside the same document as the write
 * (one document, one atomic write); the relay publishes it and then removes it. A NATS outage delays
 * events, never loses them; a crash between publish and removal re-publishes with the same message id,
 * which JetStream and the consumers' unique keys absorb.
 */
export interface OutboxEvent {
  id: string;
  subject: string;
  data: unknown;
  createdAt: Date;
  /** The HTTP request that caused the event; the relay sends it as the message's `x-request-id`. */
  requestId?: string;
  /** The trace of that request (W3C `traceparent`/`tracestate`) when tracing is on; the relay continues it. */
  trace?: TraceCarrier;
}

const outboxEventSchema = new Schema<OutboxEvent>(
  {
    id: { type: String, required: true },
    subject: { type: String, required: true },
    data: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    requestId: { type: String, required: false },
    trace: { type: Schema.Types.Mixed, required: false },
  },
  { _id: false },
);

/** Add to a schema whose writes emit events: `schema.add(outboxFields)` (or spread into its definition)
 * and declare `OUTBOX_INDEX` on it so the relay's scan reads only documents with pending events. */
const outboxFields = { pendingEvents: { type: [outboxEventSchema], default: [] } };

/** Sparse: documents whose `pendingEvents` is empty are not in it. */
const OUTBOX_INDEX = [{ 'pendingEvents.id': 1 }, { sparse: true }] as const;

/** Adds the outbox fields and index to a schema. */
export function addOutbox(schema: Schema): void {
  schema.add(outboxFields);
  schema.index({ ...OUTBOX_INDEX[0] }, { ...OUTBOX_INDEX[1] });
}

const PENDING = { 'pendingEvents.id': { $exists: true } };

/**
 * A new entry for a document's `pendingEvents` (made by an event definition's `outbox`); it remembers the request
 * id and trace of the request being served.
 */
export function newOutboxEvent(message: (eventId: string) => { subject: string; data: unknown }): OutboxEvent {
  const id = randomUUID();
  const requestId = currentRequestId();
  const trace = currentTraceCarrier();
  return { id, ...message(id), createdAt: new Date(), ...(requestId ? { requestId } : {}), ...(trace ? { trace } : {}) };
}

export interface OutboxRelayOptions {
  bus: EventPublisher;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  models: Model<any>[];
  logger: Logger;
  intervalMs?: number;
  /** The longest wait between the timer's passes while they find nothing (default 8 times `intervalMs`). */
  idleMaxMs?: number;
  batchSize?: number;
  /** The stream(s) it publishes to; labels its backlog metrics. */
  stream?: string;
}

/** The most copies of one event a publish sends at once (see `OutboxRelay`). */
const MAX_COPIES = 256;

/**
 * Every write kicks its process's relay, so the timer only publishes what a kick missed: events whose publish or
 * removal failed (NATS or the store away), and those a replica stored and was lost before publishing. A kick that
 * names the document it wrote reads that one document by id while the relay's last pass left nothing behind
 * (issue 42: on the local store every scan reads each document of every outbox collection, once per write, while
 * every other command waits); after anything failed, or for a kick that names nothing, a pass scans them all,
 * oldest first, so an event left behind is never overtaken by a newer one from this process. Each replica
 * runs a relay, and each timer pass is a scan of every outbox collection: while the passes find nothing, the timer
 * waits twice as long each time, up to `idleMaxMs` (issue 37: with three houses replicas the store spent about
 * 2 ms of CPU a second per replica on empty scans). A pass that finds an event or fails brings it back to
 * `intervalMs`, so an outage is still retried every interval.
 *
 * An event whose publish went unanswered (a timeout, not a refusal) is sent again as 4, 16, 64, then 256 copies at
 * once under its one message id (issue 37). A stream leader of nats-server before 2.10.12 that leads again after
 * fewer new messages than the stream has counted duplicates drops that many proposals without an answer, each
 * publish closing the gap by one: one publish per 5 s timeout left the COMMUNITY stream stalled for minutes after its
 * leader was lost. The stream stores at most one copy (the rest are its duplicates, or dropped unstored), the next
 * event waits for the first ack, and the EventBus sends one copy to a server without the fault (`dropsProposals`).
 */
export class OutboxRelay implements OutboxBacklogSource {
  private timer: NodeJS.Timeout | undefined;
  private unregister: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** The timer's next wait. */
  private waitMs: number;
  /** Whether the current pass found an event. */
  private found = false;
  /** The event whose last publishes went unanswered, and how many times in a row. */
  private unanswered: { id: string; times: number } | undefined;
  /** Documents named by kicks since the last pass. */
  private written: WrittenOutboxDocument[] = [];
  /** Whether the next pass scans every collection: at start, after a failure, for a kick naming no document. */
  private scanDue = true;

  constructor(private readonly options: OutboxRelayOptions) {
    this.waitMs = this.intervalMs;
  }

  get stream(): string {
    return this.options.stream ?? 'unknown';
  }

  private get intervalMs(): number {
    return this.options.intervalMs ?? 1_000;
  }

  start(): void {
    this.unregister = registerOutboxSource(this);
    void this.kick();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.unregister === undefined) return;
    this.timer = setTimeout(() => void this.kick(), this.waitMs);
    this.timer.unref();
  }

  /**
   * Runs a pass now (called right after a write, naming the document it wrote if it can); passes never overlap, a
   * kick during one queues another.
   */
  kick(written?: WrittenOutboxDocument): Promise<void> {
    if (written && this.modelOf(written)) this.written.push(written);
    else this.scanDue = true;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let delivered: boolean;
      let found = false;
      do {
        this.again = false;
        this.found = false;
        const scan = this.scanDue;
        const written = this.written.splice(0);
        this.scanDue = false;
        // A scan publishes the named documents too: they are pending like any other.
        delivered = scan ? await this.flush() : await this.flushWritten(written);
        if (!delivered) this.scanDue = true;
        // What a named document held is no sign of anything missed: only a scan's finds keep the timer frequent.
        found ||= scan && this.found;
      } while (this.again && delivered);
      const idle = delivered && !found;
      this.waitMs = idle ? Math.min(this.waitMs * 2, this.options.idleMaxMs ?? 8 * this.intervalMs) : this.intervalMs;
    })().finally(() => {
      this.running = undefined;
      this.schedule();
    });
    return this.running;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private modelOf(written: WrittenOutboxDocument): Model<any> | undefined {
    return this.options.models.find((model) => model.collection.collectionName === written.model.collection.collectionName);
  }

  /** Publishes what the named documents hold, each read by id; returns whether everything found was delivered. */
  private async flushWritten(written: readonly WrittenOutboxDocument[]): Promise<boolean> {
    for (const document of written) {
      const model = this.modelOf(document);
      if (!model) continue;
      const doc = await model
        .findOne({ _id: document.id, ...PENDING }, { pendingEvents: 1 })
        .lean<{ _id: unknown; pendingEvents: OutboxEvent[] }>()
        .exec()
        .catch((err: Error) => {
          this.options.logger.warn('outbox read failed', { error: err.message });
          return undefined;
        });
      if (doc === undefined) return false;
      // Published meanwhile (by another replica's scan, or this relay's), or withdrawn with its write.
      if (doc === null) continue;
      this.found = true;
      if (!(await this.publish(model, doc))) return false;
    }
    return true;
  }

  /**
   * Publishes everything pending; stops at the first failure (NATS down) and leaves the rest for the timer.
   * Returns whether everything found was delivered.
   */
  async flush(): Promise<boolean> {
    const batchSize = this.options.batchSize ?? 200;
    for (const model of this.options.models) {
      for (;;) {
        const docs = await model
          .find(PENDING, { pendingEvents: 1 })
          .sort({ _id: 1 })
          .limit(batchSize)
          .lean<{ _id: unknown; pendingEvents: OutboxEvent[] }[]>()
          .exec()
          .catch((err: Error) => {
            this.options.logger.warn('outbox scan failed', { error: err.message });
            return undefined;
          });
        if (docs === undefined) return false;
        if (docs.length === 0) break;
        this.found = true;
        for (const doc of docs) if (!(await this.publish(model, doc))) return false;
        if (docs.length < batchSize) break;
      }
    }
    return true;
  }

  /** Publishes a document's events in order, removing each once published; false at the first failure. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private async publish(model: Model<any>, doc: { _id: unknown; pendingEvents: OutboxEvent[] }): Promise<boolean> {
    for (const event of doc.pendingEvents) {
      const copies = this.unanswered?.id === event.id ? Math.min(4 ** this.unanswered.times, MAX_COPIES) : 1;
      try {
        await this.options.bus.publish(event.subject, event.data, event.id, {
          // The event's own trace only: this pass may have been started by another request.
          requestId: event.requestId,
          trace: event.trace ?? {},
          ...(copies > 1 ? { copies } : {}),
        });
        this.unanswered = undefined;
      } catch (err) {
        const timedOut = err instanceof TimeoutError || (err as Error).name === 'TimeoutError';
        this.unanswered = timedOut ? { id: event.id, times: copies > 1 ? (this.unanswered?.times ?? 0) + 1 : 1 } : undefined;
        this.options.logger.warn('outbox publish deferred', { subject: event.subject, eventId: event.id, copies, error: (err as Error).message });
        return false;
      }
      // Published but not yet removed (the database is away): the next pass publishes it again with the
      // same message id, which the stream drops. A throw here would reject kick(), which runs unawaited.
      const removed = await model
        .updateOne({ _id: doc._id }, { $pull: { pendingEvents: { id: event.id } } })
        .exec()
        .then(
          () => true,
          (err: Error) => {
            this.options.logger.warn('outbox removal deferred', { subject: event.subject, eventId: event.id, error: err.message });
            return false;
          },
        );
      if (!removed) return false;
    }
    return true;
  }

  /** Events waiting per collection and the oldest one's creation time (the `/metrics` outbox gauges). */
  async backlog(): Promise<Array<{ collection: string; pending: number; oldestCreatedAt: Date | undefined }>> {
    const rows = [];
    for (const model of this.options.models) {
      const [found] = await model
        .aggregate<{ pending: number; oldest?: Date }>([
          { $match: PENDING },
          { $unwind: '$pendingEvents' },
          { $group: { _id: null, pending: { $sum: 1 }, oldest: { $min: '$pendingEvents.createdAt' } } },
        ])
        .exec();
      rows.push({
        collection: model.collection.collectionName,
        pending: found?.pending ?? 0,
        oldestCreatedAt: found?.oldest ? new Date(found.oldest) : undefined,
      });
    }
    return rows;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregister?.();
    clearTimeout(this.timer);
    await this.running;
  }
}

/** The documents whose writes store events (`addOutbox` on their schemas) and the events they hold. */
export interface OutboxDeclaration {
  /** The event definitions (`defineEvent`) whose entries the documents hold; the relay labels its backlog by their streams. */
  events: readonly { readonly stream: StreamDefinition }[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  models: Model<any>[];
}

/** Starts the relay of a service's outbox (runService; tests of a producer); its backlog is labelled by stream. */
export function startOutboxRelay(bus: EventPublisher, outbox: OutboxDeclaration, options: { logger: Logger; intervalMs?: number }): OutboxRelay {
  const stream = [...new Set(outbox.events.map((event) => event.stream.name))].join(',');
  const relay = new OutboxRelay({ bus, models: outbox.models, stream, ...options });
  relay.start();
  return relay;
}
