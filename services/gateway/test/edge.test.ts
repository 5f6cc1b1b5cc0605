/**
 * The edge rules (decisions.md, "Content and the edge") and the defects found by trying the gateway as a hostile
 * client would: stuck keep-alive connections, CORS, non-canonical paths, parser-level answers, limits.
 * Everything runs over real sockets against real upstream servers.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import request from 'supertest';
import { createLogger, generateDevKeyPair, signAccessToken } from '@binzip/shared';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';
import { canonicalPath } from '../src/proxy/paths';
import { serveLocally } from './helpers';

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** An upstream that answers at once, before reading any body (as a service does with a 400 or 401). */
async function startEagerUpstream(): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const body = JSON.stringify({ code: 'C0002', message: '올바르지 않은 요청 값입니다.' });
    res.writeHead(req.method === 'GET' ? 200 : 400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  const { url, close } = await serveLocally(server);
  return { url, hits, close };
}

/** Raw bytes in, the whole answer out (status line, headers, body) until the gateway closes or `until` matches. */
function raw(port: number, text: string, until?: (received: string) => boolean): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    const done = () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head: head.toLowerCase(), body });
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (until?.(received)) {
        socket.destroy();
        done();
      }
    });
    socket.on('close', done);
    socket.on('error', reject);
  });
}

const keys = generateDevKeyPair();
const logger = createLogger('gateway-edge-test', 'silent');
const claims = { userId: 7, userName: 'tester', authority: 'USER' as const, userType: 'NONE' as const };

describe('the gateway edge', () => {
  let upstream: Awaited<ReturnType<typeof startEagerUpstream>>;
  const servers: http.Server[] = [];

  beforeAll(async () => {
    upstream = await startEagerUpstream();
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await upstream.close();
  });

  function config(overrides: Record<string, string> = {}) {
    return configSchema.parse({
      JWT_PUBLIC_KEY: keys.publicKey,
      ACCOUNTS_URLS: upstream.url,
      COMMUNITY_URLS: upstream.url,
      HOUSES_URLS: upstream.url,
      RECORDS_URLS: upstream.url,
      NOTIFICATIONS_URLS: upstream.url,
      ...overrides,
    });
  }
  const handler = (overrides: Record<string, string> = {}) => buildGateway({ config: config(overrides), logger }).handle;
  async function serve(overrides: Record<string, string> = {}): Promise<{ url: string; port: number }> {
    const server = await listenGateway(buildGateway({ config: config(overrides), logger }), 0, '127.0.0.1');
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, port };
  }

  describe('keep-alive connections', () => {
    /** One request on the agent's single connection; resolves with the status. */
    function one(url: string, agent: http.Agent, method: string, path: string, headers: http.OutgoingHttpHeaders = {}, body?: Buffer): Promise<number> {
      return new Promise((resolve, reject) => {
        const req = http.request(`${url}${path}`, { method, agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    }

    it('carry the next request after an upstream answered a 1 MB body before reading it', async () => {
      const { url } = await serve();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const body = Buffer.alloc(1_000_000, 'a');
      try {
        for (let round = 0; round < 5; round++) {
          const headers = { authorization: `Bearer ${signAccessToken(claims, keys.privateKey)}`, 'content-type': 'text/plain', 'content-length': body.length };
          const post = await one(url, agent, 'POST', '/api/v1/boards', headers, body);
          expect(post).toBe(400);
          // Without draining, this request waits on the same connection until the keep-alive timeout.
          expect(await one(url, agent, 'GET', '/api/v1/boards/category?name=INTRO')).toBe(200);
        }
      } finally {
        agent.destroy();
      }
    });

    it('carry the next request after the gateway itself refused a body (bad token)', async () => {
      const { url } = await serve();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const body = Buffer.alloc(1_000_000, 'a');
      try {
        for (let round = 0; round < 3; round++) {
          const headers = { 'content-type': 'text/plain', authorization: 'Bearer broken', 'transfer-encoding': 'chunked' };
          expect(await one(url, agent, 'POST', '/api/v1/boards', headers, body)).toBe(401);
          expect(await one(url, agent, 'GET', '/api/v1/boards/category?name=INTRO')).toBe(200);
        }
      } finally {
        agent.destroy();
      }
    });
  });

  describe('CORS', () => {
    it('allows any localhost front-end by default, with credentials and a cached preflight', async () => {
      const res = await request(handler()).options('/api/v1/boards').set('origin', 'http://localhost:5173').set('access-control-request-method', 'POST');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThanOrEqual(600);
      const loopback = await request(handler()).get('/api/v1/boards/category').set('origin', 'http://127.0.0.1:3000');
      expect(loopback.headers['access-control-allow-origin']).toBe('http://127.0.0.1:3000');
    });

    it('never reflects an arbitrary or null origin', async () => {
      for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example', 'http://localhost:80x']) {
        const res = await request(handler()).get('/api/v1/boards/category').set('origin', origin);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      }
    });

    it('refuses * and null as configured origins', () => {
      expect(() => config({ CORS_ORIGINS: '*' })).toThrow();
      expect(() => config({ CORS_ORIGINS: 'null' })).toThrow();
      expect(config({ CORS_ORIGINS: 'https://binzip.example, http://localhost:*' }).CORS_ORIGINS).toEqual(['https://binzip.example', 'http://localhost:*']);
    });
  });

  it('marks every answer nosniff and no-store, and never says what it runs on', async () => {
    const app = handler();
    for (const path of ['/api/v1/boards/category', '/api/v1/nothing', '/health', '/api/v1/users']) {
      const res = await request(app).get(path);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-powered-by']).toBeUndefined();
      if (path.startsWith('/api')) expect(res.headers['cache-control']).toBe('no-store');
    }
    const refused = await request(app).get('/api/v1/users').set('authorization', 'Bearer x');
    expect(refused.status).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });

  describe('canonical paths', () => {
    it('are computed once: backslashes, empty and dot segments, escapes and the case of the fixed part', () => {
      expect(canonicalPath('/api\\v1\\boards\\1')).toBe('/api/v1/boards/1');
      expect(canonicalPath('/api/v1/users//sign-in')).toBe('/api/v1/users/sign-in');
      expect(canonicalPath('/api/v1/boards/./../users/sign-in/')).toBe('/api/v1/users/sign-in');
      expect(canonicalPath('/API/V1/Users/Sign-In')).toBe('/api/v1/users/Sign-In');
      expect(canonicalPath('/api/v1/users/sign%2din')).toBe('/api/v1/users/sign-in');
      expect(canonicalPath('/api/v1/boards/%2f')).toBe('/api/v1/boards/%2F');
      expect(canonicalPath('/api/v1/boards?x')).toBe('/api/v1/boards?x');
      expect(canonicalPath('/../etc/passwd')).toBeUndefined();
      expect(canonicalPath('/api/v1/boards/%zz')).toBeUndefined();
    });

    it('reach the upstream in their canonical form; the unresolvable ones get a 400 envelope, never a 500', async () => {
      const app = handler();
      const before = upstream.hits.length;
      const backslash = await request(app).get('/api\\v1\\boards\\1');
      expect(backslash.status).toBe(200);
      expect(upstream.hits.at(-1)?.url).toBe('/api/v1/boards/1');
      const mixed = await request(app).get('/API/v1//Boards/./1/?page=0');
      expect(mixed.status).toBe(200);
      expect(upstream.hits.at(-1)?.url).toBe('/api/v1/boards/1?page=0');
      expect(upstream.hits.length).toBe(before + 2);

      const { port } = await serve();
      const escaped = await raw(port, 'GET /api/../../x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      expect(escaped.status).toBe(400);
      expect(JSON.parse(escaped.body)).toEqual({ code: 'C0002', message: '올바르지 않은 요청 값입니다.' });

      // The query goes on exactly as sent; a fragment never does.
      const withFragment = await raw(port, 'GET /api/v1/Boards/2?q=%EB%B9%88%EC%A7%91&sort=a,b#top HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
      expect(withFragment.status).toBe(200);
      expect(upstream.hits.at(-1)?.url).toBe('/api/v1/boards/2?q=%EB%B9%88%EC%A7%91&sort=a,b');
    });
  });

  describe('answers Node would give without a body', () => {
    it('a bad Expect is 417 with an envelope', async () => {
      const { port } = await serve();
      const res = await raw(port, 'GET /api/v1/boards HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n');
      expect(res.status).toBe(417);
      expect(res.head).toContain('x-content-type-options: nosniff');
      expect(JSON.parse(res.body).code).toBe('C0002');
    });

    it('too many or too large headers and a malformed request are 4xx envelopes', async () => {
      const { port } = await serve();
      const many = Array.from({ length: 2_000 }, (_, i) => `x-h${i}: ${i}`).join('\r\n');
      const tooMany = await raw(port, `GET /api/v1/boards HTTP/1.1\r\nHost: a\r\n${many}\r\nConnection: close\r\n\r\n`);
      expect([400, 431]).toContain(tooMany.status);
      expect(JSON.parse(tooMany.body).code).toBe('C0002');

      const garbage = await raw(port, 'GET /api/v1/boards HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n');
      expect(garbage.status).toBe(400);
      expect(garbage.head).toContain('x-content-type-options: nosniff');
      expect(JSON.parse(garbage.body).code).toBe('C0002');
    });
  });

  describe('every answer is an envelope (issue 19 item 9)', () => {
    const envelope = (res: { body: string }) => JSON.parse(res.body) as { code: string; message: string };

    it('an HTTP/1.1 request without Host is 400 C0002, on the API and on the own pages', async () => {
      const { port } = await serve();
      for (const path of ['/api/v1/boards', '/health']) {
        const res = await raw(port, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
        expect(res.status).toBe(400);
        expect(res.head).toContain('x-content-type-options: nosniff');
        expect(envelope(res)).toEqual({ code: 'C0002', message: '올바르지 않은 요청 값입니다.' });
      }
      // HTTP/1.0 has no Host requirement.
      expect((await raw(port, 'GET /health HTTP/1.0\r\n\r\n')).status).toBe(200);
    });

    it('CONNECT is 405 C0002 with Allow, and nothing is tunnelled', async () => {
      const { port } = await serve();
      const before = upstream.hits.length;
      for (const target of ['example.com:443', '/api/v1/boards']) {
        const res = await raw(port, `CONNECT ${target} HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
        expect(res.status).toBe(405);
        expect(res.head).toContain('allow: get, head, post, put, patch, delete, options');
        expect(envelope(res).code).toBe('C0002');
      }
      expect(upstream.hits.length).toBe(before);
    });

    it('hundreds of small headers are 431 C0002 (not silently cut at 2,000); an ordinary number passes', async () => {
      const { port } = await serve();
      const lines = (n: number) => Array.from({ length: n }, (_, i) => `a${i % 10}: ${i % 10}`).join('\r\n');
      const before = upstream.hits.length;
      const many = await raw(port, `GET /api/v1/boards HTTP/1.1\r\nHost: a\r\n${lines(3_000)}\r\nConnection: close\r\n\r\n`);
      expect(many.status).toBe(431);
      expect(envelope(many).code).toBe('C0002');
      expect(upstream.hits.length).toBe(before);
      const ordinary = await raw(port, `GET /api/v1/boards HTTP/1.1\r\nHost: a\r\n${lines(150)}\r\nConnection: close\r\n\r\n`);
      expect(ordinary.status).toBe(200);
    });

    it("headers just under 16 KiB get the gateway's 431 envelope, never a service's bare 431", async () => {
      const { port } = await serve();
      const filler = Array.from({ length: 4 }, (_, i) => `x-filler-${i}: ${'v'.repeat(4_000)}`).join('\r\n');
      const res = await raw(port, `GET /api/v1/boards HTTP/1.1\r\nHost: a\r\n${filler}\r\nConnection: close\r\n\r\n`);
      expect(res.status).toBe(431);
      expect(envelope(res).code).toBe('C0002');
    });
  });

  describe('flood ceilings', () => {
    it('count every spelling of sign-in together', async () => {
      const app = handler({ RATE_LIMIT_SIGN_IN_MAX: '4' });
      const spellings = ['/api/v1/users/sign-in', '/api/v1/users//sign-in', '/API/V1/USERS/SIGN-IN/', '/api\\v1\\users\\sign%2Din'];
      for (const path of spellings) expect((await request(app).post(path).send({})).status).toBe(400);
      for (const path of spellings) {
        const limited = await request(app).post(path).send({});
        expect(limited.status).toBe(429);
        expect(limited.body).toEqual({ code: 'C0004', message: '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.' });
      }
    });

    it('cannot be escaped with a rotating X-Forwarded-For when nobody is trusted (the default)', async () => {
      const app = handler({ RATE_LIMIT_SIGN_IN_MAX: '3' });
      for (let i = 0; i < 3; i++) await request(app).post('/api/v1/users/sign-in').set('x-forwarded-for', `10.0.0.${i}`).send({});
      expect((await request(app).post('/api/v1/users/sign-in').set('x-forwarded-for', '10.0.0.99').send({})).status).toBe(429);
      expect((await request(app).post('/api/v1/users/send/sms').set('x-forwarded-for', '10.0.0.99').send({})).status).toBe(400);
    });

    it('key on the address the trusted load balancer gives', async () => {
      const app = handler({ RATE_LIMIT_SIGN_IN_MAX: '2', TRUST_PROXY: 'loopback' });
      for (let i = 0; i < 2; i++) await request(app).post('/api/v1/users/sign-in').set('x-forwarded-for', '203.0.113.1').send({});
      expect((await request(app).post('/api/v1/users/sign-in').set('x-forwarded-for', '203.0.113.1').send({})).status).toBe(429);
      // Another client behind the same balancer has its own count.
      expect((await request(app).post('/api/v1/users/sign-in').set('x-forwarded-for', '203.0.113.2').send({})).status).toBe(400);
    });

    it('let at least 300 sign-ins a minute through from one address (a shared NAT) by default', async () => {
      const defaults = config();
      expect(defaults.RATE_LIMIT_SIGN_IN_MAX * (60_000 / defaults.RATE_LIMIT_WINDOW_MS)).toBeGreaterThanOrEqual(300);
      const app = handler();
      for (let i = 0; i < 300; i++) expect((await request(app).post('/api/v1/users/sign-in').send({})).status).toBe(400);
    });
  });

  it('verifies a token once and remembers it until its expiry, within a bounded cache', async () => {
    const gateway = buildGateway({ config: config({ TOKEN_CACHE_SIZE: '2' }), logger });
    const tokens = [1, 2, 3].map((userId) => `Bearer ${signAccessToken({ ...claims, userId }, keys.privateKey)}`);
    for (const token of tokens) expect((await request(gateway.handle).get('/api/v1/notifications').set('authorization', token)).status).toBe(200);
    expect(gateway.tokens.size).toBe(2);
    const expired = `Bearer ${signAccessToken(claims, keys.privateKey, -1)}`;
    expect((await request(gateway.handle).get('/api/v1/notifications').set('authorization', expired)).body.code).toBe('J0002');
    expect(gateway.tokens.size).toBe(2);
  });
});
