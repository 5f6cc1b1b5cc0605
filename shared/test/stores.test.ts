import type { Connection } from 'mongoose';
import { Schema } from 'mongoose';
import { z } from 'zod';
import {
  EventBus,
  OutboxRelay,
  applyUserSnapshot,
  consume,
  createLogger,
  defineEvent,
  nextId,
  nickNamesOf,
  addOutbox,
  projectedUserModel,
  userProjection,
  accountsStream,
} from '../src';
import { connectTestDb, dropTestDb, eventually, isolatedNames, publishUserSnapshot, testEnv, userSnapshot } from '../../test/support';
import { startNatsServer } from '../../scripts/lib/nats';
import { producerStream } from './fixtures/streams';

const communityStream = producerStream('COMMUNITY');
const recordsStream = producerStream('RECORDS');

const logger = createLogger('stores-test', process.env.DBG ? 'debug' : 'silent');
const names = isolatedNames('shared');
let connection: Connection;
let bus: EventBus;

beforeAll(async () => {
  connection = await connectTestDb(names.db);
  bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'shared-test', logger });
});

afterAll(async () => {
  await bus.deleteStreams();
  await bus.close();
  await dropTestDb(connection);
});

const snapshot = (id: number, nick: string, version: number) => userSnapshot(id, nick, { version });

describe('integer ids', () => {
  it('hands out distinct increasing ids under concurrency', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, () => nextId(connection, 'thing')));
    expect(new Set(ids).size).toBe(40);
    expect(Math.min(...ids)).toBe(1);
    expect(Math.max(...ids)).toBe(40);
    expect(await nextId(connection, 'other')).toBe(1);
  });
});

describe('user projection', () => {
  it('keeps the newest snapshot whatever order they arrive in', async () => {
    const model = projectedUserModel(connection);
    await model.init();
    await applyUserSnapshot(model, snapshot(5, 'second', 2));
    await applyUserSnapshot(model, snapshot(5, 'first', 1));
    await applyUserSnapshot(model, snapshot(5, 'second', 2));
    expect((await nickNamesOf(model, [5, 5, 99])).get(5)).toBe('second');
    await applyUserSnapshot(model, snapshot(5, 'third', 3));
    expect((await nickNamesOf(model, [5])).get(5)).toBe('third');
  });

  it('follows accounts.user.* over NATS, and a new consumer rebuilds from the last message per subject', async () => {
    await bus.ensureStream(accountsStream);
    await publishUserSnapshot(bus, snapshot(21, 'old21', 1));
    await publishUserSnapshot(bus, snapshot(21, 'new21', 2));
    await publishUserSnapshot(bus, snapshot(22, 'only22', 1));
    const other = await connectTestDb(`${names.db}_fresh`);
    try {
      const consumer = await bus.consume(userProjection({ bus, connection: other, service: 'fresh' }));
      const model = projectedUserModel(other);
      await eventually(async () => (await model.countDocuments({ _id: { $in: [21, 22] } })) === 2, 10_000);
      const nicks = await nickNamesOf(model, [21, 22]);
      expect(nicks.get(21)).toBe('new21');
      expect(nicks.get(22)).toBe('only22');
      await consumer.stop();
    } finally {
      await dropTestDb(other);
    }
  });
});

describe('consumers', () => {
  it('terminates invalid payloads and keeps going; redelivers after a failed handling', async () => {
    await bus.ensureStream(communityStream);
    const shape = defineEvent({ subject: 'community.shape.x', stream: communityStream, version: 1, schema: z.object({ n: z.number() }) });
    const seen: number[] = [];
    let failOnce = true;
    const consumer = await bus.consume(
      consume(shape, {
        durable: 'shape-test',
        backoffMs: [200, 400],
        handle: async ({ n }) => {
          if (n === 2 && failOnce) {
            failOnce = false;
            throw new Error('transient');
          }
          seen.push(n);
        },
      }),
    );
    await bus.publish(shape.subject, shape.build({ n: 1 }), 's1');
    await bus.publish(shape.subject, { bad: true }, 's-bad');
    await bus.publish(shape.subject, shape.build({ n: 2 }), 's2');
    await bus.publish(shape.subject, shape.build({ n: 3 }), 's3');
    await bus.publish(shape.subject, shape.build({ n: 3 }), 's3');
    await eventually(() => seen.length >= 3 && seen.includes(2), 10_000);
    expect(seen.sort()).toEqual([1, 2, 3]);
    await consumer.stop();
  });
});

describe('consumer stop', () => {
  it('stops a consumer stopped right after it started, instead of hanging on its message loop', async () => {
    const stop = defineEvent({ subject: 'community.stop.x', stream: communityStream, version: 1, schema: z.object({}) });
    const consumer = await bus.consume(consume(stop, { durable: 'stop-at-once', handle: async () => undefined }));
    const stopped = await Promise.race([consumer.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('hung'), 5_000))]);
    expect(stopped).toBe('stopped');
  });
});

describe('outbox relay', () => {
  interface Note {
    _id: number;
    text: string;
    pendingEvents: unknown[];
  }

  const noteCreated = defineEvent({ subject: 'records.note.created', stream: recordsStream, version: 1, schema: z.object({ text: z.string() }) });

  it('publishes events stored with the write, including those written while NATS was down', async () => {
    const nats = await startNatsServer({ storeDir: `${process.env.BINZIP_TEST_DATA_DIR}/nats-outbox-${Date.now()}` });
    const privateBus = await EventBus.connect({ url: nats.uri, prefix: names.natsPrefix, name: 'outbox-test', logger });
    const noteSchema = new Schema<Note>({ _id: Number, text: String });
    addOutbox(noteSchema);
    const Note = connection.model<Note>('Note', noteSchema);
    const relay = new OutboxRelay({ bus: privateBus, models: [Note], logger, intervalMs: 200 });
    try {
      await privateBus.ensureStream(recordsStream);
      const received: string[] = [];
      const consumer = await privateBus.consume(
        consume(noteCreated, {
          durable: 'outbox-test',
          handle: async ({ text }) => {
            received.push(text);
          },
        }),
      );
      relay.start();
      await Note.create({ _id: 1, text: 'before', pendingEvents: [noteCreated.outbox({ text: 'before' })] });
      void relay.kick();
      await eventually(() => received.includes('before'), 10_000);

      await nats.stop();
      await Note.create({ _id: 2, text: 'during', pendingEvents: [noteCreated.outbox({ text: 'during' })] });
      await relay.kick();
      expect((await Note.findById(2).lean())?.pendingEvents).toHaveLength(1);

      await nats.restart();
      await eventually(() => received.includes('during'), 20_000);
      await eventually(async () => (await Note.countDocuments({ 'pendingEvents.id': { $exists: true } })) === 0, 10_000);
      expect(await Note.countDocuments()).toBe(2);
      expect(received.filter((t) => t === 'during')).toHaveLength(1);
      await consumer.stop();
    } finally {
      await relay.stop();
      await privateBus.close();
      await nats.stop();
    }
  }, 60_000);

  it('scans less and less often while it finds nothing, and still publishes an event no write kicked it for', async () => {
    const quietSchema = new Schema<Note>({ _id: Number, text: String });
    addOutbox(quietSchema);
    let scans = 0;
    // The relay's scans of the collection, counted on the real model (the relay's only `find`).
    quietSchema.pre('find', () => {
      scans++;
    });
    const Quiet = connection.model<Note>('QuietNote', quietSchema);
    await Quiet.init();
    const relay = new OutboxRelay({ bus, models: [Quiet], logger, intervalMs: 100, idleMaxMs: 800 });
    try {
      await bus.ensureStream(recordsStream);
      relay.start();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // Every 100 ms: 25 scans. Waiting twice as long after each empty one, up to 800 ms: at 0, 0.2, 0.6, 1.4 and 2.2 s.
      expect(scans).toBeLessThanOrEqual(8);
      expect(scans).toBeGreaterThanOrEqual(4);

      // Stored without a kick (a replica lost before its own relay's pass): found by this one's idle pass.
      await Quiet.create({ _id: 1, text: 'left', pendingEvents: [noteCreated.outbox({ text: 'left' })] });
      await eventually(async () => (await Quiet.countDocuments({ 'pendingEvents.id': { $exists: true } })) === 0, 3_000);
      // Having found one, the relay is back at its interval.
      const after = scans;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // 100, 200, 400 ms after the pass that found it: two or three scans in the next second (one at 800 ms without).
      expect(scans - after).toBeGreaterThanOrEqual(2);
    } finally {
      await relay.stop();
    }
  });
});
