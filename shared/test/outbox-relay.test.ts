import type { Model } from 'mongoose';
import { OutboxRelay, createLogger, type EventBus, type OutboxEvent } from '../src';

/**
 * The relay's pass logic against in-memory stand-ins for the models and the bus: the order it publishes in,
 * where it stops when something fails, and that a failure never rejects the unawaited kick().
 */
interface Doc {
  _id: number;
  pendingEvents: OutboxEvent[];
}

const logger = createLogger('outbox-relay-test', 'silent');

function event(id: string): OutboxEvent {
  return { id, subject: `records.test.${id}`, data: { id }, createdAt: new Date(0) };
}

/** Reads the relay made: `scan` for a scan of the collection, the id for a document read by id. */
type Reads = Array<'scan' | number>;

function fakeModel(docs: Doc[], options: { failRemoval?: () => boolean; name?: string; reads?: Reads } = {}): Model<Doc> {
  const query = <T>(value: () => T) => ({ sort: () => query(value), limit: () => query(value), lean: () => query(value), exec: async () => value() });
  const pendingCopy = (d: Doc) => ({ _id: d._id, pendingEvents: [...d.pendingEvents] });
  return {
    collection: { collectionName: options.name ?? 'notes' },
    find: () => {
      options.reads?.push('scan');
      return query(() => docs.filter((d) => d.pendingEvents.length > 0).map(pendingCopy));
    },
    findOne: (filter: { _id: number }) => {
      options.reads?.push(filter._id);
      return query(() => {
        const doc = docs.find((d) => d._id === filter._id && d.pendingEvents.length > 0);
        return doc ? pendingCopy(doc) : null;
      });
    },
    updateOne: (filter: { _id: number }, update: { $pull: { pendingEvents: { id: string } } }) => ({
      exec: async () => {
        if (options.failRemoval?.()) throw new Error('database away');
        const doc = docs.find((d) => d._id === filter._id);
        if (doc) doc.pendingEvents = doc.pendingEvents.filter((e) => e.id !== update.$pull.pendingEvents.id);
      },
    }),
  } as unknown as Model<Doc>;
}

function fakeBus(failOn: Set<string>): { bus: EventBus; published: string[] } {
  const published: string[] = [];
  const bus = {
    publish: async (_subject: string, _data: unknown, id: string) => {
      if (failOn.has(id)) throw new Error('nats away');
      published.push(id);
    },
  } as unknown as EventBus;
  return { bus, published };
}

describe('OutboxRelay passes', () => {
  it('publishes every model in turn, stops at a failed publish and resumes from there on the next pass', async () => {
    const notes: Doc[] = [
      { _id: 1, pendingEvents: [event('a1'), event('a2')] },
      { _id: 2, pendingEvents: [event('a3')] },
    ];
    const comments: Doc[] = [{ _id: 1, pendingEvents: [event('b1')] }];
    const failOn = new Set(['a2']);
    const { bus, published } = fakeBus(failOn);
    const relay = new OutboxRelay({ bus, models: [fakeModel(notes), fakeModel(comments)], logger });

    expect(await relay.flush()).toBe(false);
    expect(published).toEqual(['a1']);
    expect(notes[0]?.pendingEvents.map((e) => e.id)).toEqual(['a2']);
    expect(comments[0]?.pendingEvents).toHaveLength(1);

    failOn.clear();
    expect(await relay.flush()).toBe(true);
    expect(published).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect([...notes, ...comments].every((d) => d.pendingEvents.length === 0)).toBe(true);
  });

  it('keeps an event whose removal failed for the next pass, and kick() does not reject', async () => {
    const notes: Doc[] = [{ _id: 1, pendingEvents: [event('c1')] }];
    let removalFails = true;
    const { bus, published } = fakeBus(new Set());
    const relay = new OutboxRelay({ bus, models: [fakeModel(notes, { failRemoval: () => removalFails })], logger });

    await expect(relay.kick()).resolves.toBeUndefined();
    expect(notes[0]?.pendingEvents).toHaveLength(1);

    removalFails = false;
    await relay.kick();
    // Published again with the same message id: the stream's de-duplication drops the repeat.
    expect(published).toEqual(['c1', 'c1']);
    expect(notes[0]?.pendingEvents).toHaveLength(0);
  });

  it('sends an event whose publish went unanswered again as 4, 16, 64, then 256 copies, and one copy after an answer', async () => {
    const notes: Doc[] = [{ _id: 1, pendingEvents: [event('d1'), event('d2')] }];
    const calls: Array<{ id: string; copies: number }> = [];
    let failures: Error[] = [];
    const timeout = () => Object.assign(new Error('timeout'), { name: 'TimeoutError' });
    const bus = {
      publish: async (_subject: string, _data: unknown, id: string, options: { copies?: number } = {}) => {
        calls.push({ id, copies: options.copies ?? 1 });
        const failure = failures.shift();
        if (failure) throw failure;
      },
    } as unknown as EventBus;
    const relay = new OutboxRelay({ bus, models: [fakeModel(notes)], logger });

    failures = [timeout(), timeout(), timeout(), timeout(), timeout(), timeout()];
    for (let pass = 0; pass < 6; pass++) expect(await relay.flush()).toBe(false);
    expect(await relay.flush()).toBe(true);
    expect(calls).toEqual([...[1, 4, 16, 64, 256, 256, 256].map((copies) => ({ id: 'd1', copies })), { id: 'd2', copies: 1 }]);

    // A refusal (not a timeout) starts again from one copy.
    notes[0].pendingEvents = [event('d3')];
    calls.length = 0;
    failures = [timeout(), new Error('no responders'), timeout()];
    for (let pass = 0; pass < 3; pass++) expect(await relay.flush()).toBe(false);
    expect(await relay.flush()).toBe(true);
    expect(calls.map((c) => c.copies)).toEqual([1, 4, 1, 4]);
  });

  it('reads a named document by id once a pass has left nothing behind, and scans again after a failure', async () => {
    const notes: Doc[] = [{ _id: 1, pendingEvents: [event('e1')] }];
    const comments: Doc[] = [];
    const reads: Reads = [];
    const failOn = new Set<string>();
    const { bus, published } = fakeBus(failOn);
    const notesModel = fakeModel(notes, { reads });
    const commentsModel = fakeModel(comments, { name: 'comments', reads });
    const relay = new OutboxRelay({ bus, models: [notesModel, commentsModel], logger });

    // The first pass scans every collection, whatever the kick names.
    await relay.kick({ model: notesModel, id: 1 });
    expect(published).toEqual(['e1']);
    expect(reads).toEqual(['scan', 'scan']);

    // Nothing was left behind: a write's kick reads its own document, and no collection is scanned.
    reads.length = 0;
    comments.push({ _id: 7, pendingEvents: [event('e2'), event('e3')] });
    await relay.kick({ model: commentsModel, id: 7 });
    expect(published).toEqual(['e1', 'e2', 'e3']);
    expect(reads).toEqual([7]);

    // A publish that fails leaves the event; the next kick scans, so the older event goes out before the newer one.
    reads.length = 0;
    failOn.add('e4');
    comments.push({ _id: 8, pendingEvents: [event('e4')] });
    await relay.kick({ model: commentsModel, id: 8 });
    expect(published).toEqual(['e1', 'e2', 'e3']);
    failOn.clear();
    comments.push({ _id: 9, pendingEvents: [event('e5')] });
    reads.length = 0;
    await relay.kick({ model: commentsModel, id: 9 });
    expect(published).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(reads).toEqual(['scan', 'scan']);

    // A kick naming no document, or a collection the relay does not publish, scans as before.
    reads.length = 0;
    await relay.kick();
    await relay.kick({ model: { collection: { collectionName: 'elsewhere' } }, id: 1 });
    expect(reads).toEqual(['scan', 'scan', 'scan', 'scan']);
    await relay.stop();
  });
});
