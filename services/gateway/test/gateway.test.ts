import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import request from 'supertest';
import { createLogger, generateDevKeyPair, signAccessToken } from '@binzip/shared';
import { eventually } from '../../../test/support';
import { configSchema } from '../src/config';
import { createPools, serviceFor, UpstreamPool } from '../src/proxy/upstreams';
import { buildGateway, listenGateway } from '../src/gateway';
import { refusedUrl, serveLocally } from './helpers';

/** A real HTTP upstream that answers with what it received, so the tests see what the gateway forwarded. */
interface Upstream {
  url: string;
  hits: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** Requests whose connection went away before they were answered. */
  abandoned: string[];
  close(): Promise<void>;
}

async function startUpstream(name: string, behaviour: 'echo' | 'hang' = 'echo'): Promise<Upstream> {
  const hits: Upstream['hits'] = [];
  const abandoned: string[] = [];
  const server = http.createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) abandoned.push(req.url ?? '');
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/ready') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"code":"SUCCESS"}');
        return;
      }
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (behaviour === 'hang' || req.url?.endsWith('/hang')) return;
      if (req.url?.endsWith('/fail')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'C0000', message: '예기치 못한 오류가 발생했습니다.' }));
        return;
      }
      // Connection management of its own, which is not the client's business.
      if (req.url?.endsWith('/hop')) res.setHeader('connection', 'close, x-hop').setHeader('x-hop', '1');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: { upstream: name, url: req.url } }));
    });
  });
  const { url, close } = await serveLocally(server);
  return { url, hits, abandoned, close };
}

/** Sends bytes as they are (what supertest cannot: absolute-form targets) and returns the status line. */
function rawStatusLine(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('close', () => resolve(received.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

/** One request over a real socket with the given headers and body (chunked when no length is given). */
function send(
  url: string,
  options: { method?: string; path: string; headers?: http.OutgoingHttpHeaders; body?: string; agent?: http.Agent },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${options.path}`, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const keys = generateDevKeyPair();
const otherKeys = generateDevKeyPair();
const logger = createLogger('gateway-test', 'silent');
const claims = { userId: 7, userName: 'tester', authority: 'USER' as const, userType: 'NONE' as const };
/** A member's header: bodies to members' operations are read (and forwarded) only with one (issue 34). */
const memberAuth = `Bearer ${signAccessToken(claims, keys.privateKey)}`;

describe('gateway', () => {
  let accounts: Upstream;
  let community: Upstream;
  let housesA: Upstream;
  let housesB: Upstream;
  let records: Upstream;
  let notifications: Upstream;
  let slow: Upstream;
  let dead: string;

  beforeAll(async () => {
    [accounts, community, housesA, housesB, records, notifications, slow] = await Promise.all([
      startUpstream('accounts'),
      startUpstream('community'),
      startUpstream('houses-a'),
      startUpstream('houses-b'),
      startUpstream('records'),
      startUpstream('notifications'),
      startUpstream('slow', 'hang'),
    ]);
    dead = await refusedUrl();
  });

  afterAll(async () => {
    await Promise.all([accounts, community, housesA, housesB, records, notifications, slow].map((u) => u.close()));
  });

  function gatewayConfig(overrides: Record<string, string> = {}) {
    return configSchema.parse({
      JWT_PUBLIC_KEY: keys.publicKey,
      ACCOUNTS_URLS: accounts.url,
      COMMUNITY_URLS: community.url,
      HOUSES_URLS: `${housesA.url},${housesB.url}`,
      RECORDS_URLS: records.url,
      NOTIFICATIONS_URLS: notifications.url,
      ...overrides,
    });
  }

  function gateway(overrides: Record<string, string> = {}) {
    return buildGateway({ config: gatewayConfig(overrides), logger }).handle;
  }

  it('routes every prefix of the table to its service, at segment boundaries only', async () => {
    const app = gateway();
    const cases: Array<[string, string]> = [
      ['/api/v1/users/sign-up', 'accounts'],
      ['/api/v1/agents/sign-up', 'accounts'],
      ['/api/v1/boards?prefix=INTRO', 'community'],
      ['/api/v1/comments/3', 'community'],
      ['/api/v1/loves/3', 'community'],
      ['/api/v1/record/hot', 'records'],
      ['/api/v1/record_review/1', 'records'],
      ['/api/v1/record_comment/1', 'records'],
      ['/api/v1/record_category/template/culture', 'records'],
      ['/api/v1/notifications', 'notifications'],
    ];
    for (const [path, service] of cases) {
      const res = await request(app).get(path);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ upstream: service, url: path });
    }
    expect(serviceFor('/api/v1/records')).toBeUndefined();
    expect(serviceFor('/api/v1/usersx')).toBeUndefined();
  });

  it('answers an unknown route with the 404 C0001 envelope', async () => {
    const res = await request(gateway()).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'C0001', message: '존재하지 않는 리소스 요청입니다.' });
  });

  it('forwards bodies byte for byte, even ones that are not valid JSON', async () => {
    const before = community.hits.length;
    const raw = '{"title": "제목", broken';
    const res = await request(gateway()).post('/api/v1/boards').set('authorization', memberAuth).set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(200);
    expect(community.hits[before]?.body).toBe(raw);
  });

  it('passes a valid token through and refuses bad ones before any upstream sees them', async () => {
    const app = gateway();
    const token = signAccessToken(claims, keys.privateKey);
    const ok = await request(app).get('/api/v1/notifications').set('authorization', `Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(notifications.hits.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);

    const before = notifications.hits.length;
    const forged = await request(app)
      .get('/api/v1/notifications')
      .set('authorization', `Bearer ${signAccessToken(claims, otherKeys.privateKey)}`);
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ code: 'J0001', message: '잘못된 JWT 서명입니다.' });

    const expired = await request(app)
      .get('/api/v1/notifications')
      .set('authorization', `Bearer ${signAccessToken(claims, keys.privateKey, -10)}`);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('J0002');

    const noPrefix = await request(app).get('/api/v1/notifications').set('authorization', token);
    expect(noPrefix.status).toBe(401);
    expect(noPrefix.body.code).toBe('J0004');

    const garbage = await request(app).get('/api/v1/notifications').set('authorization', 'Bearer not.a.jwt');
    expect(garbage.body.code).toBe('J0004');
    expect(notifications.hits.length).toBe(before);
  });

  it('lets reissue through with an expired token: that is the request that replaces it', async () => {
    const expired = `Bearer ${signAccessToken(claims, keys.privateKey, -10)}`;
    const reissue = await request(gateway()).post('/api/v1/users/reissue').set('authorization', expired).send({ access_token: expired });
    expect(reissue.status).toBe(200);
    expect(accounts.hits.at(-1)?.url).toBe('/api/v1/users/reissue');
    const variant = await request(gateway()).post('/api/v1/users/Reissue/').set('authorization', expired).send({});
    expect(variant.status).toBe(200);
    const other = await request(gateway()).post('/api/v1/users/logout').set('authorization', expired);
    expect(other.status).toBe(401);
  });

  it('generates a request id, or passes a given one through, to the upstream and back', async () => {
    const app = gateway();
    const generated = await request(app).get('/api/v1/record/hot');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(records.hits.at(-1)?.headers['x-request-id']).toBe(generated.headers['x-request-id']);

    const given = await request(app).get('/api/v1/record/hot').set('x-request-id', 'client-abc.1');
    expect(given.headers['x-request-id']).toBe('client-abc.1');
    expect(records.hits.at(-1)?.headers['x-request-id']).toBe('client-abc.1');
    expect(records.hits.at(-1)?.headers['x-forwarded-for']).toBeDefined();
  });

  it("spreads requests round robin over the instances of a service: every one without read affinity, members' reads with it", async () => {
    const inTurn = gateway({ UPSTREAM_READ_AFFINITY: 'off' });
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await request(inTurn).get('/api/v1/houses')).body.data.upstream);
    expect(seen.filter((s) => s === 'houses-a')).toHaveLength(2);
    expect(seen.filter((s) => s === 'houses-b')).toHaveLength(2);

    // By default an anonymous read goes to the replica its path hashes to; a member's read is not kept by the
    // replica's cache for others, and goes in turn.
    const byDefault = gateway();
    const members = [];
    for (let i = 0; i < 4; i++) members.push((await request(byDefault).get('/api/v1/houses').set('authorization', memberAuth)).body.data.upstream);
    expect(members.filter((s) => s === 'houses-a')).toHaveLength(2);
    expect(members.filter((s) => s === 'houses-b')).toHaveLength(2);
    const anonymous = [];
    for (let i = 0; i < 4; i++) anonymous.push((await request(byDefault).get('/api/v1/houses')).body.data.upstream);
    expect(new Set(anonymous).size).toBe(1);
  });

  it('skips an instance that refuses connections', async () => {
    const app = gateway({ HOUSES_URLS: `${dead},${housesA.url}` });
    for (let i = 0; i < 4; i++) {
      const res = await request(app).get('/api/v1/houses');
      expect(res.status).toBe(200);
      expect(res.body.data.upstream).toBe('houses-a');
    }
  });

  it('answers 503 when every instance refuses, 504 when the upstream is silent past the timeout', async () => {
    const down = await request(gateway({ RECORDS_URLS: dead }))
      .post('/api/v1/record')
      .set('authorization', memberAuth)
      .send({ title: 'x' });
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('C0000');
    expect(down.body.data).toBeUndefined();
    expect(typeof down.body.message).toBe('string');

    const timeout = await request(gateway({ RECORDS_URLS: slow.url, UPSTREAM_TIMEOUT_MS: '300' })).get('/api/v1/record/hot');
    expect(timeout.status).toBe(504);
    expect(timeout.body.code).toBe('C0000');
  });

  it('refuses bodies over the limit with 413 before forwarding', async () => {
    const before = community.hits.length;
    const res = await request(gateway({ BODY_LIMIT_BYTES: '100' }))
      .post('/api/v1/boards')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ title: 'x'.repeat(200) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('C0002');
    expect(community.hits.length).toBe(before);
  });

  it('allows the larger upload limit on the two picture upload paths only', async () => {
    const app = gateway({ BODY_LIMIT_BYTES: '100', UPLOAD_BODY_LIMIT_BYTES: '1000' });
    const body = 'x'.repeat(500);
    const token = `Bearer ${signAccessToken(claims, keys.privateKey)}`;
    for (const path of ['/api/v1/boards/images', '/api/v1/houses/images', '/API/v1/Boards/images']) {
      const res = await request(app).post(path).set('authorization', token).set('content-type', 'application/octet-stream').send(body);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    const overUpload = await request(app)
      .post('/api/v1/boards/images')
      .set('authorization', token)
      .set('content-type', 'application/octet-stream')
      .send('x'.repeat(1500));
    expect(overUpload.status).toBe(413);
    // Elsewhere, and on the upload paths with another method, the 1 MB (here 100 B) limit stays.
    for (const [method, path] of [
      ['post', '/api/v1/boards'],
      ['post', '/api/v1/boards/images/x'],
      ['put', '/api/v1/boards/images'],
    ] as const) {
      const res = await request(app)[method](path).set('content-type', 'application/octet-stream').send(body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 413 });
    }
  });

  it('rate limits sign-in and the two send-code endpoints per client with C0004', async () => {
    const app = gateway({ RATE_LIMIT_SIGN_IN_MAX: '3', RATE_LIMIT_SEND_CODE_MAX: '2' });
    for (let i = 0; i < 3; i++) expect((await request(app).post('/api/v1/users/sign-in').send({})).status).toBe(200);
    const limited = await request(app).post('/api/v1/users/sign-in').send({});
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ code: 'C0004', message: '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.' });

    for (let i = 0; i < 2; i++) expect((await request(app).post('/api/v1/users/send/sms').send({})).status).toBe(200);
    expect((await request(app).post('/api/v1/users/send/sms').send({})).status).toBe(429);
    for (let i = 0; i < 2; i++) expect((await request(app).post('/api/v1/users/send/email').send({})).status).toBe(200);
    expect((await request(app).post('/api/v1/users/send/email').send({})).status).toBe(429);
    // Other endpoints are not limited.
    expect((await request(app).post('/api/v1/users/sign-up').send({})).status).toBe(200);
  });

  it('allows credentialed CORS from configured origins only', async () => {
    const app = gateway({ CORS_ORIGINS: 'https://binzip.example' });
    const allowed = await request(app).options('/api/v1/boards').set('origin', 'https://binzip.example').set('access-control-request-method', 'POST');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://binzip.example');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    const other = await request(app).options('/api/v1/boards').set('origin', 'https://evil.example').set('access-control-request-method', 'POST');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  describe('over real sockets', () => {
    let server: http.Server;
    let url: string;

    async function serve(overrides: Record<string, string> = {}): Promise<string> {
      server = await listenGateway(buildGateway({ config: gatewayConfig(overrides), logger }), 0, '127.0.0.1');
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return url;
    }

    afterEach(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    it('streams a chunked upload under the upload limit and cuts one over it', async () => {
      await serve({ BODY_LIMIT_BYTES: '100', UPLOAD_BODY_LIMIT_BYTES: '1000' });
      const headers = {
        'content-type': 'application/octet-stream',
        'transfer-encoding': 'chunked',
        authorization: `Bearer ${signAccessToken(claims, keys.privateKey)}`,
      };
      const under = await send(url, { method: 'POST', path: '/api/v1/houses/images', headers, body: 'y'.repeat(900) });
      expect(under.status).toBe(200);
      const over = await send(url, { method: 'POST', path: '/api/v1/houses/images', headers, body: 'y'.repeat(1100) });
      expect(over.status).toBe(413);
    });

    it('refuses a chunked body over the limit with 413 while streaming, and forwards one under it', async () => {
      await serve({ BODY_LIMIT_BYTES: '100' });
      const before = community.hits.length;
      const big = await send(url, {
        method: 'POST',
        path: '/api/v1/boards',
        headers: { authorization: memberAuth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body: 'x'.repeat(500),
      });
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toEqual({ code: 'C0002', message: '요청 본문이 너무 큽니다.' });
      expect(community.hits.length).toBe(before);

      const small = await send(url, {
        method: 'POST',
        path: '/api/v1/boards',
        headers: { authorization: memberAuth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body: '{"a":1}',
      });
      expect(small.status).toBe(200);
      expect(community.hits.at(-1)?.body).toBe('{"a":1}');
    });

    it('does not forward hop-by-hop headers in either direction', async () => {
      await serve();
      const agent = new http.Agent({ keepAlive: true });
      try {
        const res = await send(url, {
          path: '/api/v1/boards/hop',
          agent,
          headers: { connection: 'keep-alive, x-secret', 'x-secret': 's', te: 'trailers', 'proxy-authorization': 'Basic eA==', 'x-kept': 'k' },
        });
        expect(res.status).toBe(200);
        const hit = community.hits.at(-1);
        expect(hit?.headers['x-secret']).toBeUndefined();
        expect(hit?.headers.te).toBeUndefined();
        expect(hit?.headers['proxy-authorization']).toBeUndefined();
        expect(hit?.headers['x-kept']).toBe('k');
        // The upstream closing its own connection does not close the client's.
        expect(res.headers['x-hop']).toBeUndefined();
        expect(res.headers.connection).toBe('keep-alive');
      } finally {
        agent.destroy();
      }
    });

    it('takes the upstream request down with a client that goes away', async () => {
      await serve({ UPSTREAM_TIMEOUT_MS: '60000' });
      const before = community.hits.length;
      const req = http.get(`${url}/api/v1/boards/hang`);
      req.on('error', () => undefined);
      await eventually(() => community.hits.length > before);
      req.destroy();
      await eventually(() => community.abandoned.includes('/api/v1/boards/hang'));
    });

    it('closes an idle pooled upstream connection itself, before the service would, and opens a new one next time', async () => {
      // An upstream that keeps idle connections far longer than the gateway may: any close seen within the
      // test is the gateway's.
      const upstream = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"code":"SUCCESS","message":"성공"}');
      });
      upstream.keepAliveTimeout = 30_000;
      const opened: net.Socket[] = [];
      const closed: net.Socket[] = [];
      upstream.on('connection', (socket: net.Socket) => {
        opened.push(socket);
        socket.on('close', () => closed.push(socket));
      });
      const local = await serveLocally(upstream);
      try {
        await serve({ COMMUNITY_URLS: local.url, UPSTREAM_IDLE_SOCKET_MS: '300' });
        expect((await send(url, { path: '/api/v1/boards/category' })).status).toBe(200);
        expect(opened).toHaveLength(1);
        await eventually(() => closed.length === 1, 3_000);

        expect((await send(url, { path: '/api/v1/boards/category' })).status).toBe(200);
        expect(opened).toHaveLength(2);
      } finally {
        await local.close();
      }
    });

    it('answers request targets that are not paths with 400', async () => {
      await serve();
      const port = Number(new URL(url).port);
      expect(await rawStatusLine(port, 'GET http://elsewhere.example/api/v1/boards HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).toBe(
        'HTTP/1.1 400 Bad Request',
      );
      expect(await rawStatusLine(port, 'OPTIONS * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    });
  });

  it('sets x-forwarded-for once, also on a retried request, with only what the gateway trusts', async () => {
    const trusted = await request(gateway({ HOUSES_URLS: `${dead},${housesA.url}`, TRUST_PROXY: 'loopback' }))
      .get('/api/v1/houses/1')
      .set('x-forwarded-for', '9.9.9.9');
    expect(trusted.status).toBe(200);
    // Loopback is trusted here, so its claim stands; the peer is added once.
    expect(housesA.hits.at(-1)?.headers['x-forwarded-for']).toMatch(/^9\.9\.9\.9, (::ffff:)?127\.0\.0\.1$/);

    // Nobody is trusted by default: the client's own claim is dropped.
    const untrusted = await request(gateway({ HOUSES_URLS: `${dead},${housesA.url}` }))
      .get('/api/v1/houses/1')
      .set('x-forwarded-for', '9.9.9.9');
    expect(untrusted.status).toBe(200);
    expect(housesA.hits.at(-1)?.headers['x-forwarded-for']).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('passes an upstream 5xx through untouched: the service has already answered with its envelope', async () => {
    const res = await request(gateway()).get('/api/v1/boards/fail');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'C0000', message: '예기치 못한 오류가 발생했습니다.' });
  });

  it('is live always and ready only when every service has an instance answering its /ready', async () => {
    expect((await request(gateway()).get('/health')).status).toBe(200);
    const ready = await request(gateway()).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data.status).toBe('READY');
    const notReady = await request(gateway({ NOTIFICATIONS_URLS: dead })).get('/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.body.data.services.notifications).toBe('NOT_READY');
  });
});

describe('UpstreamPool', () => {
  it('rotates, skips instances marked down until their time passes, and falls back when all are down', () => {
    let now = 0;
    const pool = new UpstreamPool('houses', ['a', 'b', 'c'], () => now);
    expect([pool.pick(), pool.pick(), pool.pick()].sort()).toEqual(['a', 'b', 'c']);
    pool.markDown('b');
    const picks = new Set(Array.from({ length: 6 }, () => pool.pick()));
    expect(picks).toEqual(new Set(['a', 'c']));
    pool.markDown('a');
    pool.markDown('c');
    expect(pool.pick()).toBeDefined();
    now = 10_000;
    expect(pool.isDown('b')).toBe(false);
    expect(pool.pick(new Set(['a', 'b', 'c']))).toBeUndefined();
  });

  it('builds one pool per service', () => {
    const pools = createPools({ accounts: ['x'], community: ['y'], houses: ['z1', 'z2'], records: ['r'], notifications: ['n'] });
    expect(pools.houses.urls).toEqual(['z1', 'z2']);
  });
});
