/**
 * What an operator sees of real processes: one request id from the gateway to the notification consumer's
 * log, and `/ready` and `/metrics` on every service process.
 */
import { randomBytes } from 'node:crypto';
import { bearer, eventually } from '../support';
import { startE2eSystem, type E2eSystem } from '../support/e2e';
import type { ProcessHandle } from '../../scripts/lib/system';

jest.setTimeout(180_000);

const AUTHOR = 401;
const COMMENTER = 402;
const METRICS_TOKEN = 'e2e-metrics-token-0123456789';
let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('opse2e', {
    services: ['community', 'notifications'],
    env: { LOG_LEVEL: 'info', OUTBOX_INTERVAL_MS: '500', METRICS_TOKEN },
  });
  await e2e.publishUser({ id: AUTHOR, nick_name: 'opsAuthor', version: 1 });
  await e2e.publishUser({ id: COMMENTER, nick_name: 'opsCommenter', version: 1 });
});

afterAll(async () => {
  await e2e?.stop();
});

const processOf = (service: 'community' | 'notifications'): ProcessHandle => {
  const handle = e2e.system.services[service]?.[0];
  if (!handle) throw new Error(`${service} is not running`);
  return handle;
};

/** The JSON log lines a process wrote (the last 200 chunks it kept). */
function logLines(handle: ProcessHandle): Array<Record<string, unknown>> {
  return handle.output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test("a comment's x-request-id reaches the notifications consumer's log line for its event", async () => {
  const board = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: bearer({ userId: AUTHOR }),
    body: { title: '추적 글', code: '<p>본문</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  const requestId = `trace-${randomBytes(6).toString('hex')}`;
  const res = await e2e.api('POST', '/api/v1/comments', {
    token: bearer({ userId: COMMENTER }),
    body: { boardId: board, content: '요청 id 따라가기' },
    headers: { 'x-request-id': requestId },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-request-id')).toBe(requestId);

  const handled = await eventually(() => logLines(processOf('notifications')).find((line) => line.message === 'event handled' && line.requestId === requestId));
  expect(handled).toMatchObject({
    service: 'notifications',
    consumer: 'notifications-board-comments',
    subject: expect.stringMatching(/community\.comment\.created$/),
  });
  // Log lines are written in batches (shared/src/core/telemetry.ts flushes 100 ms after a line), so the access line may trail the answer.
  const accessLine = await eventually(() => logLines(processOf('community')).find((line) => line.message === 'request' && line.requestId === requestId));
  expect(accessLine).toMatchObject({ method: 'POST' });
});

test('every service process answers /ready with its stores and /metrics to the bearer of METRICS_TOKEN', async () => {
  const board = await e2e.ok<number>('POST', '/api/v1/boards', {
    token: bearer({ userId: AUTHOR }),
    body: { title: '지표 글', code: '<p>본문</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  await e2e.ok('GET', `/api/v1/boards/${board}`);
  for (const service of ['community', 'notifications'] as const) {
    const { url } = processOf(service);
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { data: unknown }).data).toEqual({ status: 'UP', service, checks: { mongodb: 'UP', nats: 'UP' } });
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    if (service === 'community') {
      expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/boards\/:boardId",status_code="200"\} [1-9]/);
      expect(text).toMatch(/binzip_outbox_pending_events\{stream="COMMUNITY,AUDIT",collection="comments"\} \d+/);
      expect(text).toMatch(/binzip_outbox_oldest_pending_age_seconds\{stream="COMMUNITY,AUDIT",collection="comments"\} /);
    } else {
      expect(text).toMatch(/binzip_events_delivered_total\{stream="ACCOUNTS",consumer="notifications-users"\} [1-9]/);
    }
  }
});
