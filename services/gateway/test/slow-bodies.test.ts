/**
 * Issue 19 item 2: slow request bodies must not take a service offline. Real sockets throughout: 1,000 clients on
 * 40 loopback source addresses (127.0.0.x) each declare a 100,000-byte sign-up body and send one byte; the
 * gateway in front of real upstream servers must keep answering everyone else.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createLogger, generateDevKeyPair, signAccessToken } from '@binzip/shared';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';
import { serveLocally, type LocalServer } from './helpers';

jest.setTimeout(60_000);

const keys = generateDevKeyPair();
const logger = createLogger('gateway-slow-bodies-test', 'silent');
/** Every body here is a member's: one sent without a token to a members' operation is refused unread (issue 34). */
const member = `Bearer ${signAccessToken({ userId: 7, userName: 'tester', authority: 'USER', userType: 'NONE' }, keys.privateKey)}`;
const SERVICES = ['ACCOUNTS', 'COMMUNITY', 'HOUSES', 'RECORDS', 'NOTIFICATIONS'] as const;

/** An upstream like a service: reads the whole body, then answers; counts the requests that reached it. */
async function startUpstream(): Promise<LocalServer & { started: () => number }> {
  let started = 0;
  const server = http.createServer((req, res) => {
    started += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"code":"SUCCESS","message":"성공"}');
    });
  });
  return { ...(await serveLocally(server)), started: () => started };
}

/** A client that declares a body and sends its first byte only; the socket stays open until the test ends it. */
function slowBody(port: number, localAddress: string, path: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: gateway\r\nAuthorization: ${member}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        () => resolve(socket),
      );
    });
    socket.on('error', reject);
    socket.on('data', () => undefined);
  });
}

/** Whatever the gateway answers on a raw socket, until it closes the connection. */
function answerOf(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
  });
}

/** A normal request from 127.0.0.1; resolves with the status and how long it took. */
function timed(url: string, method: string, body?: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: false, headers: body ? { authorization: member, 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('slow request bodies (issue 19 item 2)', () => {
  const upstreams: Record<string, Awaited<ReturnType<typeof startUpstream>>> = {};
  const sockets: net.Socket[] = [];
  const servers: http.Server[] = [];

  beforeAll(async () => {
    for (const service of SERVICES) upstreams[service] = await startUpstream();
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    for (const upstream of Object.values(upstreams)) await upstream.close();
  });

  async function serve(overrides: Record<string, string> = {}): Promise<{ url: string; port: number }> {
    const env: Record<string, string> = { JWT_PUBLIC_KEY: keys.publicKey };
    for (const service of SERVICES) env[`${service}_URLS`] = upstreams[service].url;
    Object.assign(env, overrides);
    const server = await listenGateway(buildGateway({ config: configSchema.parse(env), logger }), 0, '127.0.0.1');
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, port };
  }

  const reachedUpstreams = () => SERVICES.reduce((sum, service) => sum + upstreams[service].started(), 0);

  it('1,000 slow sign-up bodies hold no upstream connection; every service still answers within 1 s', async () => {
    const { url, port } = await serve();
    const before = reachedUpstreams();
    for (let i = 0; i < 1_000; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) => slowBody(port, `127.0.0.${2 + ((i + j) % 40)}`, '/api/v1/users/sign-up'));
      sockets.push(...(await Promise.all(batch)));
    }
    // The gateway is reading all of them: nothing has been forwarded.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reachedUpstreams()).toBe(before);

    const normal = await Promise.all([
      timed(`${url}/api/v1/users/sign-in`, 'POST', '{"userName":"someone","password":"Passw0rd!"}'),
      timed(`${url}/api/v1/users/check/nickname`, 'POST', '{"nick_name":"이웃"}'),
      timed(`${url}/api/v1/boards`, 'GET'),
      timed(`${url}/api/v1/houses`, 'GET'),
      timed(`${url}/api/v1/record`, 'GET'),
      timed(`${url}/api/v1/notifications`, 'GET'),
    ]);
    for (const answer of normal) {
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(1_000);
    }
    expect(reachedUpstreams()).toBe(before + normal.length);
  });

  it('one address may send only BODY_READS_PER_ADDRESS bodies at once: the rest get 429 C0004 at once, others go on', async () => {
    const { url, port } = await serve({ BODY_READS_PER_ADDRESS: '8' });
    for (let i = 0; i < 8; i++) sockets.push(await slowBody(port, '127.0.0.50', '/api/v1/boards'));
    const refused = await slowBody(port, '127.0.0.50', '/api/v1/boards');
    sockets.push(refused);
    const answer = await answerOf(refused);
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(answer.toLowerCase()).toContain('retry-after: 1');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      code: 'C0004',
      message: '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.',
    });
    // Another address, and a bodiless request from the same one, are not held back.
    expect((await timed(`${url}/api/v1/boards`, 'POST', '{"title":"t"}')).status).toBe(200);
    const sameAddress = await new Promise<number>((resolve, reject) => {
      http
        .get(`${url}/api/v1/boards`, { localAddress: '127.0.0.50', agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(sameAddress).toBe(200);
  });

  it('a body that has not arrived by BODY_TIMEOUT_MS (in total, however it trickles) is 408 C0002 and never forwarded', async () => {
    const { port } = await serve({ BODY_TIMEOUT_MS: '600' });
    const before = reachedUpstreams();
    const socket = await slowBody(port, '127.0.0.60', '/api/v1/users/sign-up');
    sockets.push(socket);
    const answer = answerOf(socket);
    // One byte every 100 ms: an idle timeout would never fire.
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    const started = performance.now();
    try {
      const text = await answer;
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'C0002', message: '요청 본문이 제시간에 도착하지 않았습니다.' });
    } finally {
      clearInterval(trickle);
    }
    expect(reachedUpstreams()).toBe(before);
  });

  it('a body that arrives in pieces within the deadline reaches the service whole, chunked or not', async () => {
    const echo = await serveLocally((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: { length: req.headers['content-length'], body: Buffer.concat(chunks).toString() } }));
      });
    });
    try {
      const { url } = await serve({ COMMUNITY_URLS: echo.url });
      for (const chunked of [false, true]) {
        const text = '{"title":"천천히 온 글"}';
        const data = await new Promise<{ length: string; body: string }>((resolve, reject) => {
          const req = http.request(
            `${url}/api/v1/boards`,
            {
              method: 'POST',
              agent: false,
              headers: chunked ? { authorization: member } : { authorization: member, 'content-length': Buffer.byteLength(text) },
            },
            (res) => {
              let received = '';
              res.on('data', (chunk: Buffer) => (received += chunk.toString()));
              res.on('end', () => resolve((JSON.parse(received) as { data: { length: string; body: string } }).data));
            },
          );
          req.on('error', reject);
          const bytes = Buffer.from(text);
          req.write(bytes.subarray(0, 5));
          setTimeout(() => req.end(bytes.subarray(5)), 100);
        });
        expect(data).toEqual({ length: String(Buffer.byteLength(text)), body: text });
      }
    } finally {
      await echo.close();
    }
  });
});
