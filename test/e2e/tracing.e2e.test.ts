/**
 * OpenTelemetry across processes: the gateway, community and notifications run as child processes with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small OTLP/HTTP receiver (scripts/lib/otlp-receiver.ts; the exporter
 * sends JSON to `/v1/traces`). One comment written through the gateway must give one trace that spans the gateway's proxied
 * request, community's request (named by its Express route) with its MongoDB commands and outbox publish, and
 * notifications' handling of the event it consumed with its own MongoDB commands. Real processes, not jest's:
 * the instrumentations patch modules through Node's `require`, which jest's module registry does not use.
 */
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../scripts/lib/otlp-receiver';

jest.setTimeout(120_000);

const AUTHOR = 401;
const COMMENTER = 402;

let receiver: OtlpReceiver;
let e2e: E2eSystem;
let spans: ReceivedSpan[];

const token = (userId: number) => bearer({ userId, userName: `user${userId}` });

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  spans = receiver.spans;
  e2e = await startE2eSystem('tracinge2e', {
    services: ['community', 'notifications'],
    env: {
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // Export within a fraction of a second instead of the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OUTBOX_INTERVAL_MS: '500',
    },
  });
  await e2e.publishUser({ id: AUTHOR, nick_name: 'traceAuthor', version: 1 });
  await e2e.publishUser({ id: COMMENTER, nick_name: 'traceCommenter', version: 1 });
});

afterAll(async () => {
  await e2e?.stop();
  await receiver?.close();
});

it('follows one comment from the gateway through community and NATS into the notifications consumer, in one trace', async () => {
  const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: token(AUTHOR),
    body: { title: '추적 글', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const res = await e2e.api<number>('POST', '/api/v1/comments', { token: token(COMMENTER), body: { boardId, content: '추적되는 댓글' } });
  expect(res.status).toBe(200);
  const requestId = res.headers.get('x-request-id');

  // The consumer's span of the one comment event, then its ancestors up to the root, as they arrive.
  const processed = await eventually(
    () => spans.find((s) => s.service === 'notifications' && s.name.endsWith('community.comment.created process')),
    15_000,
    100,
  );
  const chainOf = (span: ReceivedSpan): ReceivedSpan[] => {
    const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]));
    const chain: ReceivedSpan[] = [];
    for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) chain.push(at);
    return chain;
  };
  // Every span of the chain has its parent in the same trace, up to a root: an unbroken chain, not ids that merely match.
  const chain = await eventually(() => {
    const found = chainOf(processed);
    return found.at(-1)?.parentSpanId === '' ? found : undefined;
  }, 10_000);
  const root = chain.at(-1) as ReceivedSpan;
  // notifications' process <- community's publish (from the stored outbox event) <- community's route handler
  // <- community's request <- the gateway's proxied request (traceparent over HTTP) <- the gateway's request, the root.
  expect(chain.map((s) => [s.service, s.kind])).toEqual([
    ['notifications', 5], // CONSUMER
    ['community', 4], // PRODUCER
    ['community', 1], // INTERNAL (instrumentation-express's request handler)
    ['community', 2], // SERVER
    ['gateway', 3], // CLIENT
    ['gateway', 2], // SERVER
  ]);
  expect(chain[1].name).toMatch(/community\.comment\.created publish$/);
  expect(chain[1].attributes).toMatchObject({
    'messaging.system': 'nats',
    'messaging.destination.name': expect.stringMatching(/community\.comment\.created$/),
  });
  // instrumentation-express names community's server span by the route template it matched, and gives the route's
  // handler (not the middlewares before it: ignoreLayersType) a span of its own.
  const [, , handler, server] = chain;
  expect([server.name, server.attributes['http.route']]).toEqual(['POST /api/v1/comments', '/api/v1/comments']);
  expect([handler.name, handler.attributes['http.route'], handler.attributes['express.type']]).toEqual([
    'request handler',
    '/api/v1/comments',
    'request_handler',
  ]);
  // The gateway names the trace's root by the route prefix that chose the service.
  expect([root.name, root.attributes['http.route']]).toEqual(['POST /api/v1/comments', '/api/v1/comments']);
  const trace = spans.filter((s) => s.traceId === root.traceId);
  expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['gateway', 'community', 'notifications']));
  expect([...receiver.contentTypes]).toEqual(['application/json']);

  // instrumentation-mongodb: community's request stored the comment, and notifications' handling of the event
  // stored the notice, each as MongoDB commands under their own span (the request's route handler, the consumer's
  // process span); the mongo spans arrive with their batch, so wait for both.
  const isMongo = (s: ReceivedSpan) => (s.attributes['db.system'] ?? s.attributes['db.system.name']) === 'mongodb';
  const underOf = (span: ReceivedSpan) => chainOf(span).slice(1);
  const mongo = await eventually(() => {
    const inTrace = spans.filter((s) => s.traceId === root.traceId && isMongo(s));
    const byCommunity = inTrace.filter((s) => s.service === 'community' && underOf(s).includes(handler));
    const byNotifications = inTrace.filter((s) => s.service === 'notifications' && underOf(s).includes(processed));
    return byCommunity.some((s) => /insert/.test(s.name)) && byNotifications.length > 0 && { byCommunity, byNotifications };
  }, 10_000);
  expect(mongo.byCommunity.map((s) => s.kind)).toContain(3); // CLIENT
  // Only the route's handler: no span for the middlewares every request passes.
  expect(spans.filter((s) => s.traceId === root.traceId && s.service === 'community' && s.kind === 1).map((s) => s.name)).toEqual([handler.name]);

  // A path below a prefix: the gateway's root span is named by the prefix and `/*`, community's by its route.
  await e2e.ok('GET', `/api/v1/boards/${boardId}`, { token: token(COMMENTER) });
  const read = await eventually(() => {
    const gatewaySpan = spans.find((s) => s.service === 'gateway' && s.kind === 2 && s.attributes['url.path'] === `/api/v1/boards/${boardId}`);
    const communitySpan = gatewaySpan && spans.find((s) => s.service === 'community' && s.kind === 2 && s.traceId === gatewaySpan.traceId);
    return communitySpan && [gatewaySpan.name, communitySpan.name];
  }, 10_000);
  expect(read).toEqual(['GET /api/v1/boards/*', 'GET /api/v1/boards/:boardId']);

  // Log lines carry the trace: notifications' "event handled" line of this comment names the trace id.
  // Log lines are written in batches (shared/src/core/telemetry.ts flushes 100 ms after a line), so wait for the line to arrive.
  const handled = await eventually(() => {
    const lines = (e2e.system.services.notifications ?? []).flatMap((p) => p.output.join('').split('\n'));
    const found = lines.filter((l) => l.includes('"event handled"') && l.includes(root.traceId));
    return found.length > 0 && found;
  });
  expect(JSON.parse(handled[0])).toMatchObject({ traceId: root.traceId, requestId });
});
