import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import express from 'express';
import { Schema, type Connection } from 'mongoose';
import { StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import request from 'supertest';
import winston from 'winston';
import { z } from 'zod';
import { startNatsServer } from '../../scripts/lib/nats';
import { connectTestDb, dropTestDb, eventually, isolatedNames, testEnv } from '../../test/support';
import {
  addOutbox,
  AppError,
  createLogger,
  createServiceApp,
  generateDevKeyPair,
  handle,
  currentRequestId,
  EventBus,
  eventsDeadLettered,
  isConnected,
  metricsRegistry,
  consume,
  defineEvent,
  OutboxRelay,
  registerOutboxSource,
  requestContext,
  withOperatorEndpoints,
  type Logger,
  type RunningConsumer,
  accountsStream,
  deadLetterStream,
} from '../src';
import { producerStream } from './fixtures/streams';

const communityStream = producerStream('COMMUNITY');
const recordsStream = producerStream('RECORDS');

/** A logger like the services' whose JSON lines land in an array instead of stdout. */
function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('capture', 'debug');
  logger.clear();
  logger.add(
    new winston.transports.Stream({
      stream: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()));
          done();
        },
      }),
    }),
  );
  return { logger, lines };
}

const silent = createLogger('operations-test', 'silent');
const names = isolatedNames('operations');
let connection: Connection;
let bus: EventBus;

beforeAll(async () => {
  connection = await connectTestDb(names.db);
  bus = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'operations-test', logger: silent });
});

afterAll(async () => {
  await bus?.deleteStreams();
  await bus?.close();
  await dropTestDb(connection);
});

function thingsApp() {
  const app = createServiceApp({
    service: 'things',
    logger: silent,
    publicKey: testEnv().publicKey,
    routes: (root) => {
      const router = express.Router();
      router.get('/:thingId', (req, res) => {
        if (req.params.thingId === '404') throw AppError.notFound();
        res.json({ id: req.params.thingId });
      });
      root.use('/api/v1/things', router);
    },
  });
  return (metrics: { METRICS_ENABLED: boolean; METRICS_TOKEN?: string }) =>
    withOperatorEndpoints(app, { service: 'things', readiness: { connection, nats: bus.connection }, metrics });
}

const SCRAPE_TOKEN = 'scrape-token-0123456789';

describe('/metrics', () => {
  test('request durations are labelled by route template and status, never by the raw path', async () => {
    const app = thingsApp()({ METRICS_ENABLED: true, METRICS_TOKEN: SCRAPE_TOKEN });
    await request(app).get('/api/v1/things/7431').expect(200);
    await request(app).get('/api/v1/things/404').expect(404);
    await request(app).get('/nowhere/8812').expect(404);
    const res = await request(app).get('/metrics').set('Authorization', `Bearer ${SCRAPE_TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/things\/:thingId",status_code="200"\} 1/);
    // An error thrown in the route (the router's baseUrl is gone by then) still has its template.
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/things\/:thingId",status_code="404"\} 1/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\(unmatched\)",status_code="404"\} 1/);
    // No label holds a raw path (a bare number could turn up in any gauge's value, e.g. the heap size).
    expect(res.text).not.toMatch(/="[^"\n]*(7431|8812)[^"\n]*"/);
    // runtime metrics
    expect(res.text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(res.text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  test('without METRICS_TOKEN a service answers /metrics to nobody (403 C0003), as the gateway does', async () => {
    const open = thingsApp()({ METRICS_ENABLED: true });
    for (const authorization of [undefined, 'Bearer ', `Bearer ${SCRAPE_TOKEN}`]) {
      const call = request(open).get('/metrics');
      const res = authorization === undefined ? await call : await call.set('Authorization', authorization);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'C0003' });
      expect(res.text).not.toMatch(/nodejs_heap_size_used_bytes|http_request_duration_seconds/);
    }
  });

  test('with METRICS_TOKEN only the bearer of that token reads them; disabled, there is no /metrics', async () => {
    const build = thingsApp();
    const guarded = build({ METRICS_ENABLED: true, METRICS_TOKEN: 'scrape-token-0123456789' });
    await request(guarded).get('/metrics').expect(401);
    await request(guarded).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789').expect(401);
    await request(guarded).get('/metrics').set('Authorization', 'Bearer scrape-token-0123456789').expect(200);
    const off = await request(build({ METRICS_ENABLED: false })).get('/metrics');
    expect(off.status).toBe(404);
    expect(off.body.code).toBe('C0001');
  });

  test('the outbox backlog per stream and collection, with the age of the oldest pending event', async () => {
    const schema = new Schema({ _id: Number, title: String }, { versionKey: false, collection: 'posts' });
    addOutbox(schema);
    const Post = connection.model('Post', schema);
    const postEvent = defineEvent({ subject: 'community.test', stream: communityStream, version: 1, schema: z.object({}) });
    const old = { ...postEvent.outbox({}), createdAt: new Date(Date.now() - 120_000) };
    await Post.create({ _id: 1, title: 'a', pendingEvents: [old, postEvent.outbox({})] });
    await Post.create({ _id: 2, title: 'b', pendingEvents: [postEvent.outbox({})] });
    await Post.create({ _id: 3, title: 'c', pendingEvents: [] });
    // start() registers the relay (the e2e test sees it in a real process); here it must not publish them.
    const relay = new OutboxRelay({ bus, models: [Post], logger: silent, stream: 'COMMUNITY' });
    const unregister = registerOutboxSource(relay);
    try {
      const text = await metricsRegistry.metrics();
      expect(text).toMatch(/binzip_outbox_pending_events\{stream="COMMUNITY",collection="posts"\} 3/);
      const age = Number(/binzip_outbox_oldest_pending_age_seconds\{stream="COMMUNITY",collection="posts"\} ([\d.]+)/.exec(text)?.[1]);
      expect(age).toBeGreaterThanOrEqual(120);
    } finally {
      unregister();
    }
    expect(await metricsRegistry.metrics()).not.toMatch(/binzip_outbox_pending_events\{/);
  });
});

describe('/ready: the store decides, NATS away is DEGRADED, draining is not ready', () => {
  let storeDir: string;
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let ownBus: EventBus;
  let ownDb: Connection;

  beforeAll(async () => {
    storeDir = mkdtempSync(path.join(os.tmpdir(), 'ready-nats-'));
    nats = await startNatsServer({ storeDir });
    ownBus = await EventBus.connect({ url: nats.uri, name: 'ready-test', logger: silent });
    ownDb = await connectTestDb(`${names.db}_ready`);
  });
  afterAll(async () => {
    await ownBus?.close();
    await nats?.stop();
    await dropTestDb(isConnected(ownDb) ? ownDb : undefined);
    rmSync(storeDir, { recursive: true, force: true });
  });

  test('once draining: /ready answers 503 while the API still answers, and every answer closes its connection', async () => {
    let draining = false;
    const app = createServiceApp({
      service: 'things',
      logger: silent,
      publicKey: testEnv().publicKey,
      routes: (router) =>
        router.get(
          '/api/v1/things',
          handle(() => 1),
        ),
    });
    const operated = withOperatorEndpoints(app, {
      service: 'things',
      readiness: { connection: ownDb, nats: ownBus.connection, draining: () => draining },
      metrics: { METRICS_ENABLED: true },
    });
    // A real listener and a keep-alive client (supertest closes every connection itself).
    const server = operated.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const before = await fetch(`${url}/api/v1/things`);
      expect(before.status).toBe(200);
      expect(before.headers.get('connection')).toBe('keep-alive');

      draining = true;
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ code: 'C0000', data: { status: 'DOWN', draining: true } });
      const during = await fetch(`${url}/api/v1/things`);
      expect(during.status).toBe(200);
      expect(during.headers.get('connection')).toBe('close');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('200 DEGRADED naming NATS while it is down, UP again after it is back, 503 DOWN once MongoDB is gone; /health stays up', async () => {
    const app = createServiceApp({ service: 'things', logger: silent, publicKey: testEnv().publicKey, routes: () => undefined });
    const operated = withOperatorEndpoints(app, {
      service: 'things',
      readiness: { connection: ownDb, nats: ownBus.connection },
      metrics: { METRICS_ENABLED: true },
    });

    const up = await request(operated).get('/ready').expect(200);
    expect(up.body.data).toEqual({ status: 'UP', service: 'things', checks: { mongodb: 'UP', nats: 'UP' } });

    await nats.stop();
    const degraded = await eventually(async () => {
      const res = await request(operated).get('/ready');
      return res.body.data?.status === 'DEGRADED' ? res : undefined;
    });
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ code: 'SUCCESS', data: { status: 'DEGRADED', checks: { mongodb: 'UP', nats: 'DOWN' } } });
    await request(operated).get('/health').expect(200);

    await nats.restart();
    await eventually(async () => (await request(operated).get('/ready')).body.data?.status === 'UP', 15_000);

    await ownDb.close();
    const noMongo = await request(operated).get('/ready').expect(503);
    expect(noMongo.body).toMatchObject({ code: 'C0000', data: { status: 'DOWN', checks: { mongodb: 'DOWN', nats: 'UP' } } });
  });
});

const thing = (subject: string) => defineEvent({ subject, stream: communityStream, version: 1, schema: z.object({ n: z.number() }) });
const ridEvent = thing('community.rid.<n>');
const lagEvent = thing('community.lag.<n>');
const doomedEvent = thing('community.doomed.<n>');

describe('events: request ids and dead letters', () => {
  const consumers: RunningConsumer[] = [];
  afterAll(async () => {
    for (const consumer of consumers) await consumer.stop();
  });

  test("the publisher's request id travels in the headers; the handler and its log lines run under it", async () => {
    const { logger, lines } = capturingLogger();
    const logging = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'operations-test-rid', logger });
    const seen: Array<{ meta?: string; context?: string }> = [];
    consumers.push(
      await logging.consume(
        consume(ridEvent, {
          durable: 'rid-test',
          handle: async (_event, meta) => {
            seen.push({ meta: meta.requestId, context: currentRequestId() });
          },
        }),
      ),
    );
    await bus.publish('community.rid.one', ridEvent.build({ n: 1 }), 'rid-1', { requestId: 'req-from-http-1' });
    await bus.publish('community.rid.two', ridEvent.build({ n: 2 }), 'rid-2');
    await eventually(() => seen.length === 2);
    expect(seen).toEqual([
      { meta: 'req-from-http-1', context: 'req-from-http-1' },
      { meta: undefined, context: undefined },
    ]);
    const handled = lines.filter((line) => line.message === 'event handled');
    expect(handled.map((line) => line.requestId)).toEqual(['req-from-http-1', undefined]);
    await consumers.pop()?.stop();
    await logging.close();
  });

  test("a consumer's backlog is exported as binzip_consumer_pending_events while it runs", async () => {
    const lagging = await EventBus.connect({
      url: testEnv().natsUrl,
      prefix: names.natsPrefix,
      name: 'operations-test-lag',
      logger: createLogger('lag', 'silent'),
    });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = await lagging.consume(consume(lagEvent, { durable: 'lag-test', handle: () => gate }));
    const pending = async () => {
      const text = await metricsRegistry.metrics();
      const match = /^binzip_consumer_pending_events\{stream="COMMUNITY",consumer="lag-test"\} (\d+)$/m.exec(text);
      return match ? Number(match[1]) : undefined;
    };
    for (let n = 1; n <= 3; n++) await bus.publish(`community.lag.${n}`, lagEvent.build({ n }), `lag-${n}`);
    await eventually(async () => (await pending()) === 3);
    release();
    await eventually(async () => (await pending()) === 0);
    await running.stop();
    expect(await pending()).toBeUndefined();
    await lagging.close();
  });

  test('an outbox event remembers the request being served', () => {
    const inside = requestContext.run({ requestId: 'req-outbox-9' }, () => ridEvent.outbox({ n: 9 }));
    expect(inside.requestId).toBe('req-outbox-9');
    expect(ridEvent.outbox({ n: 9 }).requestId).toBeUndefined();
  });

  test('an event whose handling always fails ends in the dead-letter stream with a metric and a log line', async () => {
    const { logger, lines } = capturingLogger();
    const failing = await EventBus.connect({ url: testEnv().natsUrl, prefix: names.natsPrefix, name: 'operations-test-dl', logger });
    let attempts = 0;
    consumers.push(
      await failing.consume(
        consume(doomedEvent, {
          durable: 'always-fails',
          maxDeliver: 3,
          backoffMs: [10],
          handle: async () => {
            attempts += 1;
            throw new Error('store refused the write');
          },
        }),
      ),
    );
    const before = (await eventsDeadLettered.get()).values.find((v) => v.labels.consumer === 'always-fails')?.value ?? 0;
    const doomed = doomedEvent.build({ n: 1 });
    await bus.publish('community.doomed.one', doomed, 'doomed-1', { requestId: 'req-doomed' });
    await bus.publish('community.doomed.bad', { n: 'not a number' }, 'doomed-2');

    const letters = await eventually(async () => {
      const found = await bus.deadLetters();
      return found.length === 2 ? found : undefined;
    }, 15_000);
    const exhausted = letters.find((l) => l.reason === 'max_deliveries');
    expect(exhausted).toMatchObject({
      stream: 'COMMUNITY',
      subject: bus.subject('community.doomed.one'),
      consumer: 'always-fails',
      deliveries: 3,
      error: 'store refused the write',
      requestId: 'req-doomed',
    });
    expect(JSON.parse(exhausted!.payload)).toEqual(doomed);
    expect(attempts).toBe(3);
    expect(letters.find((l) => l.reason === 'invalid_payload')).toMatchObject({ subject: bus.subject('community.doomed.bad'), deliveries: 1 });

    const after = (await eventsDeadLettered.get()).values.filter((v) => v.labels.consumer === 'always-fails').reduce((sum, v) => sum + v.value, 0);
    expect(after - before).toBe(2);
    const logged = lines.filter((line) => line.message === 'event dead-lettered');
    expect(logged).toHaveLength(2);
    expect(logged.find((line) => line.reason === 'max_deliveries')).toMatchObject({ requestId: 'req-doomed', consumer: 'always-fails', deliveries: 3 });
    await consumers.pop()?.stop();
    await failing.close();
  });
});

describe('stream limits', () => {
  test('snapshots keep the last message per subject; events and dead letters age out; existing streams are updated', async () => {
    const { manager } = bus;
    // A stream as an earlier version made it: five snapshots per subject, no age limit.
    await manager.streams.add({ name: bus.streamName('ACCOUNTS'), subjects: [bus.subject('accounts.>')], max_msgs_per_subject: 5 });
    await bus.ensureStream(accountsStream);
    await bus.ensureStream(communityStream);
    await bus.ensureStream(deadLetterStream);
    const accounts = (await manager.streams.info(bus.streamName('ACCOUNTS'))).config;
    expect(accounts).toMatchObject({ max_msgs_per_subject: 1, max_age: 0, num_replicas: 1 });
    const community = (await manager.streams.info(bus.streamName('COMMUNITY'))).config;
    expect(community).toMatchObject({ max_msgs_per_subject: -1, max_age: nanos(14 * 24 * 3_600_000), max_bytes: 32 * 1024 ** 2 });
    const deadLetters = (await manager.streams.info(bus.streamName('DEAD_LETTERS'))).config;
    expect(deadLetters.max_age).toBe(nanos(30 * 24 * 3_600_000));

    // What NATS cannot change in place (here the storage of a stream an operator made in memory) leaves the
    // stream as it was, with a warning, and the start goes on.
    await manager.streams.add({ name: bus.streamName('RECORDS'), subjects: [bus.subject('records.>')], storage: StorageType.Memory });
    const { logger, lines } = capturingLogger();
    const other = await EventBus.connect({
      url: testEnv().natsUrl,
      prefix: names.natsPrefix,
      name: 'limits',
      logger,
      streams: { eventRetentionMs: 3_600_000 },
    });
    try {
      await other.ensureStream(recordsStream);
      expect(lines.find((line) => line.message === 'stream keeps its earlier configuration')).toMatchObject({ stream: bus.streamName('RECORDS') });
      expect((await manager.streams.info(bus.streamName('RECORDS'))).config).toMatchObject({ storage: StorageType.Memory, max_age: 0 });
      // The settings reach the streams NATS can update.
      await other.ensureStream(communityStream);
      expect((await manager.streams.info(bus.streamName('COMMUNITY'))).config.max_age).toBe(nanos(3_600_000));
    } finally {
      await other.close();
    }
  });
});

describe('access log', () => {
  it('logs the probes at debug and every other request at info', async () => {
    const { logger, lines } = capturingLogger();
    const app = createServiceApp({
      service: 'access-log',
      logger,
      publicKey: generateDevKeyPair().publicKey,
      routes: (router) =>
        router.get(
          '/api/v1/things',
          handle(() => 1),
        ),
    });
    await request(app).get('/health').expect(200);
    await request(app).get('/api/v1/things').expect(200);
    const requests = await eventually(() => {
      const logged = lines.filter((line) => line.message === 'request');
      return logged.length >= 2 ? logged : undefined;
    });
    expect(requests.map((line) => [line.path, line.level])).toEqual([
      ['/health', 'debug'],
      ['/api/v1/things', 'info'],
    ]);
  });
});
