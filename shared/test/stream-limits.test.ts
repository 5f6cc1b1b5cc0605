/**
 * Stream byte ceilings (issue 25): NATS reserves a stream's whole `max_bytes` on its JetStream store when it
 * creates the stream, so the ceilings come from configuration, fit a small broker by default, follow a changed
 * setting, and a ceiling the broker cannot hold stops the start with the setting named. Each broker here is a
 * private nats-server with a small store; the machine's shared one is never filled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '../../scripts/lib/nats';
import { isolatedNames, testEnv } from '../../test/support';
import { createLogger, defineStream, EventBus, MIB, StreamStorageError, type StreamSettings } from '../src';
import { producerStream, SYSTEM_STREAMS } from './fixtures/streams';

const silent = createLogger('stream-limits-test', 'silent');
let dataDir: string;
const buses: EventBus[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'stream-limits-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * After each test its streams go (a failed test must not fill the small store for the next one), and its buses
 * close before their broker stops: a client left behind would try to reconnect for ever.
 */
afterEach(async () => {
  for (const bus of buses.splice(0)) {
    await bus.deleteStreams();
    await bus.close();
  }
});

async function busOn(url: string, prefix: string, streams: Partial<StreamSettings> = {}): Promise<EventBus> {
  const bus = await EventBus.connect({ url, prefix, name: 'stream-limits', logger: silent, streams });
  buses.push(bus);
  return bus;
}

const maxBytesOf = async (bus: EventBus) => {
  const { manager } = bus;
  const ceilings: Record<string, number> = {};
  for (const stream of ['ACCOUNTS', 'COMMUNITY', 'RECORDS', 'HOUSES', 'AUDIT', 'DEAD_LETTERS'] as const) {
    ceilings[stream] = (await manager.streams.info(bus.streamName(stream))).config.max_bytes;
  }
  return ceilings;
};

// The defaults reserve 4 × 32 (COMMUNITY, RECORDS, HOUSES, AUDIT) + 8 (dead letters) + 8 (SESSIONS) = 144 MiB.
describe('on a broker whose JetStream store holds 160 MiB', () => {
  let broker: Awaited<ReturnType<typeof startNatsServer>>;
  beforeAll(async () => {
    broker = await startNatsServer({ storeDir: path.join(dataDir, 'small'), maxFileStoreMiB: 160 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  test('the defaults fit: every stream is created with 32 MiB per event stream and 8 MiB of dead letters', async () => {
    const bus = await busOn(broker.uri, isolatedNames('defaults').natsPrefix);
    await bus.ensureStreams(SYSTEM_STREAMS);
    expect(await maxBytesOf(bus)).toEqual({ ACCOUNTS: -1, COMMUNITY: 32 * MIB, RECORDS: 32 * MIB, HOUSES: 32 * MIB, AUDIT: 32 * MIB, DEAD_LETTERS: 8 * MIB });
  });

  test('a changed ceiling updates the existing streams, twice in a row, in both directions', async () => {
    const prefix = isolatedNames('changed').natsPrefix;
    const first = await busOn(broker.uri, prefix, { eventMaxBytes: 4 * MIB, deadLetterMaxBytes: 2 * MIB });
    await first.ensureStreams(SYSTEM_STREAMS);
    await first.ensureStreams(SYSTEM_STREAMS);
    expect(await maxBytesOf(first)).toMatchObject({ COMMUNITY: 4 * MIB, HOUSES: 4 * MIB, DEAD_LETTERS: 2 * MIB });

    const larger = await busOn(broker.uri, prefix, { eventMaxBytes: 12 * MIB, deadLetterMaxBytes: 3 * MIB });
    await larger.ensureStreams(SYSTEM_STREAMS);
    expect(await maxBytesOf(larger)).toMatchObject({ COMMUNITY: 12 * MIB, RECORDS: 12 * MIB, HOUSES: 12 * MIB, DEAD_LETTERS: 3 * MIB });

    const smaller = await busOn(broker.uri, prefix, { eventMaxBytes: 1 * MIB, deadLetterMaxBytes: 1 * MIB });
    await smaller.ensureStreams(SYSTEM_STREAMS);
    expect(await maxBytesOf(smaller)).toMatchObject({ COMMUNITY: MIB, RECORDS: MIB, HOUSES: MIB, DEAD_LETTERS: MIB });
  });

  test('event ceilings the store cannot hold fail with an error naming EVENT_STREAM_MAX_MIB, on creation and on update', async () => {
    const prefix = isolatedNames('toolarge').natsPrefix;
    const tooLarge = await busOn(broker.uri, prefix, { eventMaxBytes: 50 * MIB });
    const created = await tooLarge.ensureStreams(SYSTEM_STREAMS).catch((err: unknown) => err);
    expect(created).toBeInstanceOf(StreamStorageError);
    expect(created).toMatchObject({ setting: 'EVENT_STREAM_MAX_MIB' });
    expect((created as Error).message).toMatch(/EVENT_STREAM_MAX_MIB.*max_file_store/);

    // Streams that fit, then a setting raised beyond the store: the update is refused with the same error.
    await (await busOn(broker.uri, prefix, { eventMaxBytes: 8 * MIB })).ensureStreams(SYSTEM_STREAMS);
    const raised = await busOn(broker.uri, prefix, { eventMaxBytes: 60 * MIB });
    await expect(raised.ensureStreams(SYSTEM_STREAMS)).rejects.toMatchObject({ name: 'StreamStorageError', setting: 'EVENT_STREAM_MAX_MIB' });
  });

  test('a dead-letter ceiling the store cannot hold names DEAD_LETTER_STREAM_MAX_MIB', async () => {
    const bus = await busOn(broker.uri, isolatedNames('deadletters').natsPrefix, { eventMaxBytes: MIB, deadLetterMaxBytes: 200 * MIB });
    await expect(bus.ensureStreams(SYSTEM_STREAMS)).rejects.toMatchObject({ setting: 'DEAD_LETTER_STREAM_MAX_MIB' });
  });
});

describe('on a broker whose account has its own JetStream limits', () => {
  let broker: Awaited<ReturnType<typeof startNatsServer>>;
  let url: string;
  beforeAll(async () => {
    broker = await startNatsServer({
      storeDir: path.join(dataDir, 'accounts'),
      extraConfig:
        'accounts { APP { jetstream { max_file: 50331648, disk_max_stream_bytes: 20971520 }, users: [{ user: app, password: app }] } }\nno_auth_user: app',
    });
    url = broker.uri;
  });
  afterAll(async () => {
    await broker?.stop();
  });

  test('the ceilings are checked against what the account reports before any stream is created', async () => {
    // 24 MiB per stream is more than the account allows one stream (20 MiB).
    const perStream = await busOn(url, isolatedNames('perstream').natsPrefix, { eventMaxBytes: 24 * MIB });
    const refused = await perStream.ensureStreams(SYSTEM_STREAMS).catch((err: unknown) => err);
    expect(refused).toMatchObject({ name: 'StreamStorageError', setting: 'EVENT_STREAM_MAX_MIB' });
    expect((refused as Error).message).toContain('at most 20 MiB per stream');

    // 4 × 16 + 8 + 8 (SESSIONS) MiB is more than the account's 48 MiB in all: refused before a single stream exists.
    const total = await busOn(url, isolatedNames('total').natsPrefix, { eventMaxBytes: 16 * MIB, deadLetterMaxBytes: 8 * MIB });
    await expect(total.ensureStreams(SYSTEM_STREAMS)).rejects.toThrow(/ask 80 MiB, the account has 48 MiB.*EVENT_STREAM_MAX_MIB/);
    expect(await total.deleteStreams()).toEqual([]);

    // 4 × 8 + 4 + 8 = 44 MiB.
    const fits = await busOn(url, isolatedNames('fits').natsPrefix, { eventMaxBytes: 8 * MIB, deadLetterMaxBytes: 4 * MIB });
    await fits.ensureStreams(SYSTEM_STREAMS);
    expect(await maxBytesOf(fits)).toMatchObject({ COMMUNITY: 8 * MIB, AUDIT: 8 * MIB, DEAD_LETTERS: 4 * MIB });
  });
});

describe('streams declared by their owners', () => {
  test('a definition is checked, and two different definitions under one name are refused', async () => {
    expect(() => defineStream({ name: 'community', subjects: ['community.>'], purpose: 'events' })).toThrow(/upper-case/);
    expect(() => defineStream({ name: 'EMPTY', subjects: [], purpose: 'events' })).toThrow(/no subjects/);
    const bus = await busOn(testEnv().natsUrl, isolatedNames('twice').natsPrefix);
    const other = defineStream({ name: 'COMMUNITY', subjects: ['elsewhere.>'], purpose: 'events' });
    await expect(bus.ensureStreams([producerStream('COMMUNITY'), other])).rejects.toThrow(/COMMUNITY is defined twice/);
    // The same definition twice (a producer's and a consumer's view of it) is one stream.
    await bus.ensureStreams([producerStream('COMMUNITY'), producerStream('COMMUNITY')]);
    expect(await bus.deleteStreams()).toEqual([bus.streamName('COMMUNITY')]);
  });

  test("a prefix's streams are found on the broker and deleted, and never those of a longer prefix that starts the same", async () => {
    const prefix = isolatedNames('bydel').natsPrefix;
    const mine = await busOn(testEnv().natsUrl, prefix);
    const longer = await busOn(testEnv().natsUrl, `${prefix}-more`);
    await mine.ensureStreams([producerStream('COMMUNITY'), producerStream('NOT_KNOWN_TO_SHARED')]);
    await longer.ensureStreams([producerStream('COMMUNITY')]);
    // `T..._MORE_COMMUNITY` starts with this prefix's `T..._` but keeps `<prefix>-more.` subjects: not this prefix's.
    expect(longer.streamName('COMMUNITY').startsWith(mine.streamName(''))).toBe(true);
    expect(await mine.deleteStreams()).toEqual([mine.streamName('COMMUNITY'), mine.streamName('NOT_KNOWN_TO_SHARED')]);
    expect((await longer.manager.streams.info(longer.streamName('COMMUNITY'))).config.name).toBe(longer.streamName('COMMUNITY'));
    expect(await longer.deleteStreams()).toEqual([longer.streamName('COMMUNITY')]);
  });
});
