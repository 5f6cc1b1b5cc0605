import http from 'node:http';
import request from 'supertest';

import { createLogger, generateDevKeyPair, metricsRegistry, signAccessToken } from '@binzip/shared/core';
import { configSchema } from '../src/config';
import { buildGateway } from '../src/gateway';
import { refusedUrl, serveLocally, type LocalServer } from './helpers';

/** An upstream that answers every path 200, `/fail` 500. */
async function startUpstream(): Promise<LocalServer> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url?.endsWith('/fail') ? 500 : 200, { 'content-type': 'application/json' });
      res.end('{"code":"SUCCESS","message":"성공"}');
    });
  });
  return serveLocally(server);
}

/** The value of one sample line of the Prometheus text, e.g. `name{a="b"}`; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('gateway /metrics', () => {
  const keys = generateDevKeyPair();
  const logger = createLogger('gateway', 'silent');
  let upstream: { url: string; close(): Promise<void> };
  let dead: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    dead = await refusedUrl();
  });
  afterAll(() => upstream.close());
  beforeEach(() => metricsRegistry.resetMetrics());

  function gateway(overrides: Record<string, string> = {}) {
    const config = configSchema.parse({
      JWT_PUBLIC_KEY: keys.publicKey,
      // supertest connects from loopback: the operator here, unless a test says otherwise.
      OPERATOR_ADDRESSES: 'loopback',
      ACCOUNTS_URLS: upstream.url,
      COMMUNITY_URLS: upstream.url,
      HOUSES_URLS: upstream.url,
      RECORDS_URLS: upstream.url,
      NOTIFICATIONS_URLS: dead,
      ...overrides,
    });
    return buildGateway({ config, logger }).handle;
  }

  it('counts proxied requests by upstream service, method and status, and serves the runtime metrics', async () => {
    const app = gateway();
    const token = `Bearer ${signAccessToken({ userId: 1, userName: 'm', authority: 'USER', userType: 'NONE' }, keys.privateKey, 600)}`;
    await request(app).get('/api/v1/boards/category?name=INTRO').expect(200);
    await request(app).get('/API/v1/boards/1').set('authorization', token).expect(200);
    await request(app).post('/api/v1/houses/fail').send({}).expect(500);
    await request(app).get('/api/v1/boards/1').set('authorization', 'Bearer broken').expect(401);

    const res = await request(app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    const series = (labels: string) => `binzip_gateway_request_duration_seconds_count{${labels}}`;
    expect(sample(text, series('service="community",method="GET",status_code="200"'))).toBe(2);
    expect(sample(text, series('service="houses",method="POST",status_code="500"'))).toBe(1);
    // Refused by the gateway itself (bad token): still the client's answer for that service.
    expect(sample(text, series('service="community",method="GET",status_code="401"'))).toBe(1);
    expect(sample(text, 'binzip_gateway_request_duration_seconds_bucket{le="10",service="community",method="GET",status_code="200"}')).toBe(2);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts upstream faults and the own pages', async () => {
    // Every request in turn: with read affinity the path may hash to the live instance and never meet the dead one.
    const app = gateway({ HOUSES_URLS: `${dead},${upstream.url}`, UPSTREAM_READ_AFFINITY: 'off' });
    await request(app).get('/api/v1/notifications').expect(503);
    // The refused instance is skipped from then on; until it is, the bodiless request is retried on the other.
    for (let i = 0; i < 2; i++) await request(app).get('/api/v1/houses').expect(200);
    await request(app).get('/health').expect(200);

    const text = (await request(app).get('/metrics').expect(200)).text;
    expect(sample(text, 'binzip_gateway_upstream_faults_total{service="notifications",kind="refused"}')).toBe(1);
    expect(sample(text, 'binzip_gateway_request_duration_seconds_count{service="notifications",method="GET",status_code="503"}')).toBe(1);
    expect(sample(text, 'binzip_gateway_upstream_retries_total{service="houses"}')).toBe(1);
    expect(sample(text, 'binzip_gateway_request_duration_seconds_count{service="houses",method="GET",status_code="200"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/health",status_code="200"}')).toBe(1);
  });

  it('answers the bearer of METRICS_TOKEN from any address', async () => {
    const secret = 'metrics-secret-0123456789';
    const app = gateway({ METRICS_TOKEN: secret, OPERATOR_ADDRESSES: '' });
    const refused = await request(app).get('/metrics').expect(403);
    expect(refused.body).toEqual({ code: 'C0003', message: '해당 요청에 대한 권한이 없습니다.' });
    await request(app).get('/metrics').set('authorization', 'Bearer not-the-secret-at-all').expect(403);
    const ok = await request(app).get('/metrics').set('authorization', `Bearer ${secret}`).expect(200);
    expect(ok.text).toContain('binzip_gateway_request_duration_seconds');
  });

  describe('the public port (issue 19 item 11)', () => {
    it('by default shows /metrics to nobody and /ready as READY or not per service, naming no instance', async () => {
      const app = gateway({ OPERATOR_ADDRESSES: '' });
      const metrics = await request(app).get('/metrics').expect(403);
      expect(metrics.body).toEqual({ code: 'C0003', message: '해당 요청에 대한 권한이 없습니다.' });
      const ready = await request(app).get('/ready').expect(503);
      expect(ready.body.data).toEqual({
        status: 'NOT_READY',
        services: { accounts: 'READY', community: 'READY', houses: 'READY', records: 'READY', notifications: 'NOT_READY' },
      });
      expect(ready.text).not.toContain('127.0.0.1');
    });

    it('gives an operator address the detail of /ready and /metrics', async () => {
      const ready = await request(gateway()).get('/ready').expect(503);
      expect(ready.body.data.services.notifications).toBe('NOT_READY');
      expect(ready.body.data.instances.notifications).toEqual([{ url: dead, up: false }]);
      expect(ready.body.data.instances.houses).toEqual([{ url: upstream.url, up: true }]);
      await request(gateway()).get('/metrics').expect(200);
    });

    it('judges the address as TRUST_PROXY does: a client cannot claim an operator address', async () => {
      const behindBalancer = gateway({ TRUST_PROXY: 'loopback', OPERATOR_ADDRESSES: '10.0.0.0/8' });
      await request(behindBalancer).get('/metrics').set('x-forwarded-for', '10.1.2.3').expect(200);
      await request(behindBalancer).get('/metrics').set('x-forwarded-for', '203.0.113.9').expect(403);
      const direct = gateway({ OPERATOR_ADDRESSES: '10.0.0.0/8' });
      await request(direct).get('/metrics').set('x-forwarded-for', '10.1.2.3').expect(403);
      const ready = await request(direct).get('/ready').set('x-forwarded-for', '10.1.2.3');
      expect(ready.body.data.instances).toBeUndefined();
    });

    it('refuses an OPERATOR_ADDRESSES it cannot read at start-up', () => {
      expect(() => configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey, OPERATOR_ADDRESSES: 'not-an-address' })).toThrow(/OPERATOR_ADDRESSES|subnets/);
    });
  });

  it('leaves /metrics out with METRICS_ENABLED=false', async () => {
    const res = await request(gateway({ METRICS_ENABLED: 'false' }))
      .get('/metrics')
      .expect(404);
    expect(res.body).toMatchObject({ code: 'C0001' });
  });
});
