/**
 * Issue 34: what an outsider could do to the gateway, tried against the built gateway process
 * (`services/gateway/dist/main.js`, `npx tsc -b` first; `GATEWAY_ENTRY` runs another build) in front of real HTTP
 * upstreams on loopback. Each test names the finding it covers; the process must be alive after every one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { generateDevKeyPair, signAccessToken } from '@binzip/shared';
import { eventually } from '../../../test/support';
import { serveLocally, type LocalServer } from './helpers';

jest.setTimeout(90_000);

const ENTRY = process.env.GATEWAY_ENTRY ?? path.resolve(__dirname, '..', 'dist', 'main.js');
const keys = generateDevKeyPair();
const member = `Bearer ${signAccessToken({ userId: 7, userName: 'tester', authority: 'USER', userType: 'NONE' }, keys.privateKey)}`;
const SERVICES = ['ACCOUNTS', 'COMMUNITY', 'HOUSES', 'RECORDS', 'NOTIFICATIONS'] as const;
const UNAVAILABLE = { code: 'C0000', message: '서비스를 일시적으로 사용할 수 없습니다.' };
const TOO_LARGE = { code: 'C0002', message: '요청 본문이 너무 큽니다.' };

/** A service stand-in: counts requests and body bytes, answers with what it received once `gate` opens. */
interface Upstream extends LocalServer {
  started: number;
  bytes: number;
  seen: Array<{ url: string; expect?: string; length: number }>;
  /** Answers are held while closed (`hold`), sent after `delayMs` otherwise. */
  hold: boolean;
  delayMs: number;
  release: () => void;
}

async function startUpstream(): Promise<Upstream> {
  let waiting: Array<() => void> = [];
  const upstream = {
    started: 0,
    bytes: 0,
    seen: [],
    hold: false,
    delayMs: 0,
    release: () => {
      const now = waiting;
      waiting = [];
      for (const answer of now) answer();
    },
  } as unknown as Upstream;
  const server = http.createServer((req, res) => {
    if (req.url === '/ready' || req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"SUCCESS","message":"성공"}');
      return;
    }
    upstream.started += 1;
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      upstream.bytes += chunk.length;
    });
    req.on('end', () => {
      upstream.seen.push({ url: req.url ?? '', expect: req.headers.expect, length });
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: { length } }));
      };
      if (upstream.hold) waiting.push(answer);
      else setTimeout(answer, upstream.delayMs);
    });
  });
  Object.assign(upstream, await serveLocally(server));
  return upstream;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface GatewayProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  alive: () => boolean;
  stop: () => Promise<void>;
}

async function startGateway(upstreams: Record<string, Upstream>, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const port = await freePort();
  const urls = Object.fromEntries(SERVICES.map((service) => [`${service}_URLS`, upstreams[service].url]));
  const child = spawn(process.execPath, [ENTRY], {
    env: { ...process.env, ...urls, HOST: '127.0.0.1', PORT: String(port), JWT_PUBLIC_KEY: keys.publicKey, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited: ${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error(`the gateway did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    port,
    child,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** A 100 Continue came before the answer. */
  continued: boolean;
}

/**
 * One request on its own connection. `body` is written at once, or after the 100 when `expect` is set;
 * `chunked` leaves the length out. Rejects with the socket error when the gateway cut the connection.
 */
function send(
  url: string,
  options: {
    method?: string;
    path: string;
    headers?: http.OutgoingHttpHeaders;
    body?: Buffer | string;
    expect?: boolean;
    timeoutMs?: number;
    localAddress?: string;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', ...options.headers };
    if (options.expect) headers.expect = '100-continue';
    const req = http.request(
      `${url}${options.path}`,
      { method: options.method ?? 'POST', agent: false, headers, localAddress: options.localAddress },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, continued }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error('no answer in time')));
    if (options.expect) {
      req.on('continue', () => {
        continued = true;
        req.end(options.body);
      });
    } else req.end(options.body);
  });
}

const envelopeOf = (answer: Answer): unknown => JSON.parse(answer.body);

describe('the gateway under attack (issue 34)', () => {
  const upstreams: Record<string, Upstream> = {};
  let gateway: GatewayProcess | undefined;

  beforeAll(async () => {
    for (const service of SERVICES) upstreams[service] = await startUpstream();
  });
  afterEach(async () => {
    for (const upstream of Object.values(upstreams)) {
      upstream.hold = false;
      upstream.delayMs = 0;
      upstream.release();
    }
    await gateway?.stop();
    gateway = undefined;
  });
  afterAll(async () => {
    for (const upstream of Object.values(upstreams)) await upstream.close();
  });

  it('item 1: 300 concurrent POSTs with a body, waiting for one instance, are all answered and the gateway stays up', async () => {
    gateway = await startGateway(upstreams);
    const community = upstreams.COMMUNITY;
    const before = community.started;
    // The instance holds its answers until all 256 connections to it are busy, so the other 44 wait for one. A
    // member's POSTs: anonymous ones (the audit's) no longer reach an instance at all (J0000 unread, tested below).
    community.hold = true;
    const pending = Promise.allSettled(
      Array.from({ length: 300 }, (_, i) =>
        send(gateway!.url, {
          path: '/api/v1/comments',
          headers: { authorization: member },
          body: '{}',
          timeoutMs: 60_000,
          localAddress: `127.0.0.${100 + (i % 20)}`,
        }),
      ),
    );
    await eventually(() => community.started - before >= 256, 45_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    community.hold = false;
    community.release();
    const answers = await pending;
    const statuses = answers.map((answer) => (answer.status === 'fulfilled' ? answer.value.status : `error: ${String(answer.reason)}`));
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // A fatal error starts an orderly shutdown that still answers what it holds: its log line is the tell.
    expect(gateway.output()).not.toMatch(/fatal error/);
    expect(gateway.alive()).toBe(true);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it('queue bound: a full queue for every instance is 503 C0000 with Retry-After at once; the requests held are answered', async () => {
    gateway = await startGateway(upstreams, { UPSTREAM_MAX_SOCKETS: '4', UPSTREAM_MAX_QUEUED: '4', UPSTREAM_TIMEOUT_MS: '20000' });
    const community = upstreams.COMMUNITY;
    community.hold = true;
    const before = community.started;
    let answered = 0;
    const pending = Array.from({ length: 20 }, () =>
      send(gateway!.url, { method: 'GET', path: '/api/v1/boards', timeoutMs: 30_000 }).then((answer) => {
        answered += 1;
        return answer;
      }),
    );
    // 4 on connections, 4 waiting for one: the other 12 are answered without waiting.
    await eventually(() => answered === 12, 10_000);
    await eventually(() => community.started - before === 4, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(community.started - before).toBe(4);
    community.hold = false;
    community.release();
    const answers = await Promise.all(pending);
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused).toHaveLength(12);
    for (const answer of refused) {
      expect(answer.headers['retry-after']).toBe('1');
      expect(envelopeOf(answer)).toEqual(UNAVAILABLE);
    }
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(8);
    // Other services were never held back.
    expect((await send(gateway.url, { method: 'GET', path: '/api/v1/houses' })).status).toBe(200);
    expect(gateway.alive()).toBe(true);
  });

  it('item 2: a body sent after Expect: 100-continue reaches the service, without the Expect header', async () => {
    gateway = await startGateway(upstreams);
    const answer = await send(gateway.url, {
      path: '/api/v1/comments',
      headers: { authorization: member },
      body: '{"content":"계속"}',
      expect: true,
      timeoutMs: 5_000,
    });
    expect(answer.continued).toBe(true);
    expect(answer.status).toBe(200);
    const seen = upstreams.COMMUNITY.seen.at(-1);
    expect(seen).toEqual({ url: '/api/v1/comments', expect: undefined, length: Buffer.byteLength('{"content":"계속"}') });
    // A member's upload with it is streamed on the same way.
    const upload = await send(gateway.url, {
      path: '/api/v1/houses/images',
      headers: { authorization: member, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(2 * 1_048_576, 1),
      expect: true,
      timeoutMs: 10_000,
    });
    expect(upload.continued).toBe(true);
    expect(upload.status).toBe(200);
    expect(upstreams.HOUSES.seen.at(-1)).toEqual({ url: '/api/v1/houses/images', expect: undefined, length: 2 * 1_048_576 });
  });

  it('item 2: 300 tiny requests with Expect: 100-continue are all forwarded and hold no connection to the service', async () => {
    gateway = await startGateway(upstreams);
    const answers = await Promise.all(
      // From 20 addresses: one address may send only BODY_READS_PER_ADDRESS (32) bodies at once.
      Array.from({ length: 300 }, (_, i) =>
        send(gateway!.url, {
          path: '/api/v1/comments',
          headers: { authorization: member },
          body: `{"i":${i}}`,
          expect: true,
          timeoutMs: 15_000,
          localAddress: `127.0.0.${100 + (i % 20)}`,
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    // Each body reached the service whole, without the expectation the gateway has already met.
    const seen = upstreams.COMMUNITY.seen.slice(-300);
    expect(seen.filter((hit) => hit.expect !== undefined || hit.length === 0)).toEqual([]);
    const started = performance.now();
    expect((await send(gateway.url, { method: 'GET', path: '/api/v1/boards', timeoutMs: 5_000 })).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('item 5: an anonymous upload is refused with J0000 before its body is read (no 100, nothing forwarded)', async () => {
    gateway = await startGateway(upstreams);
    const houses = upstreams.HOUSES;
    const before = houses.started;
    // Declares 10 MB and sends only its first 64 KiB: the answer must not wait for the rest.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${gateway!.url}/api/v1/houses/images`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/octet-stream', 'content-length': 10 * 1_048_576 } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(5_000, () => req.destroy(new Error('no answer before the body ended')));
      req.write(Buffer.alloc(65_536));
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ code: 'J0000', message: '권한 정보가 없는 토큰입니다.' });
    // With Expect: 100-continue the client is never asked for the body at all.
    const expecting = await send(gateway.url, {
      path: '/api/v1/boards/images',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1_048_576),
      expect: true,
      timeoutMs: 5_000,
    });
    expect(expecting.status).toBe(401);
    expect(expecting.continued).toBe(false);
    // Sent at once on a connection the client closes after the answer (`Connection: close`), five times: the 401 is
    // read every time, never a reset or EPIPE while the client is still sending.
    for (let i = 0; i < 5; i++) {
      const whole = await send(gateway.url, {
        path: '/api/v1/houses/images',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.alloc(10 * 1_048_576),
      });
      expect(whole.status).toBe(401);
    }
    expect(houses.started).toBe(before);
  });

  it("a body is read only once the request is allowed: an anonymous body to a members' operation gets J0000 unread", async () => {
    gateway = await startGateway(upstreams);
    const community = upstreams.COMMUNITY;
    const before = community.started;
    // POST /api/v1/comments is declared for members. 512 KiB declared (under BODY_LIMIT_BYTES), 1 KiB sent: the
    // answer must not wait for the rest (it used to wait for the whole body, then forward it to be refused).
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${gateway!.url}/api/v1/comments`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': 512 * 1024 } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(5_000, () => req.destroy(new Error('no answer before the body ended')));
      req.write(`{"content":"${'a'.repeat(1_000)}`);
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ code: 'J0000', message: '권한 정보가 없는 토큰입니다.' });
    // With Expect: 100-continue the client is never asked for the body.
    const expecting = await send(gateway.url, { path: '/api/v1/comments', body: '{"content":"x"}', expect: true, timeoutMs: 5_000 });
    expect(expecting.status).toBe(401);
    expect(expecting.continued).toBe(false);
    // Sent whole at once (a path spelled otherwise, chunked), five times: the 401 is read every time, never a reset.
    for (let i = 0; i < 5; i++) {
      const whole = await send(gateway.url, {
        method: 'PUT',
        path: '/API/v1/boards/12/',
        headers: { 'transfer-encoding': 'chunked' },
        body: JSON.stringify({ title: 't', content: 'c'.repeat(900_000) }),
      });
      expect(whole.status).toBe(401);
      expect(envelopeOf(whole)).toEqual({ code: 'J0000', message: '권한 정보가 없는 토큰입니다.' });
    }
    expect(community.started).toBe(before);
    // What anyone may send is read and forwarded as before (sign-in, a public operation), and so is a member's body.
    expect((await send(gateway.url, { path: '/api/v1/users/sign-in', body: '{}' })).status).toBe(200);
    expect((await send(gateway.url, { path: '/api/v1/comments', headers: { authorization: member }, body: '{"content":"x"}' })).status).toBe(200);
    expect(community.started).toBe(before + 1);
    expect(gateway.alive()).toBe(true);
  });

  it("item 5: a member's upload is streamed: the service has its first bytes before the client sent its last", async () => {
    gateway = await startGateway(upstreams);
    const houses = upstreams.HOUSES;
    const bytesBefore = houses.bytes;
    const total = 4 * 1_048_576;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${gateway!.url}/api/v1/houses/images`,
        { method: 'POST', agent: false, headers: { authorization: member, 'content-type': 'application/octet-stream', 'content-length': total } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(Buffer.alloc(1_048_576, 2));
      // The rest only once the service has seen some of the first part.
      eventually(() => houses.bytes > bytesBefore, 5_000).then(
        () => req.end(Buffer.alloc(total - 1_048_576, 2)),
        (err: unknown) => {
          req.destroy();
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ code: 'SUCCESS', message: '성공', data: { length: total } });
  });

  it('item 5: the bodies held at the gateway are bounded in total (BODY_BUFFER_BYTES): past it, 503 with Retry-After', async () => {
    gateway = await startGateway(upstreams, { BODY_BUFFER_BYTES: '300000' });
    const before = upstreams.COMMUNITY.started;
    // Two clients from two addresses each declare 500 KB and send 200 KB of it: the second finds no room.
    const sockets: net.Socket[] = [];
    const answers: Array<Promise<string>> = [];
    try {
      for (const localAddress of ['127.0.0.71', '127.0.0.72']) {
        const socket = net.connect({ port: gateway.port, host: '127.0.0.1', localAddress });
        sockets.push(socket);
        socket.on('error', () => undefined);
        answers.push(
          new Promise((resolve) => {
            let received = '';
            socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
            socket.on('close', () => resolve(received));
          }),
        );
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write(
          `POST /api/v1/boards HTTP/1.1\r\nHost: gateway\r\nAuthorization: ${member}\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n`,
        );
        socket.write(Buffer.alloc(200_000, 0x20));
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const refused = await Promise.race([answers[1], new Promise<string>((resolve) => setTimeout(() => resolve('(no answer)'), 5_000))]);
      expect(refused).toMatch(/^HTTP\/1\.1 503 /);
      expect(refused.toLowerCase()).toContain('retry-after: 1');
      expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual(UNAVAILABLE);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    expect(upstreams.COMMUNITY.started).toBe(before);
    expect(gateway.alive()).toBe(true);
  });

  it('item 7: an upload over the limit gets the 413 envelope the client can read, never a reset', async () => {
    gateway = await startGateway(upstreams);
    const body = Buffer.alloc(11 * 1_048_576, 3);
    for (const chunked of [false, true]) {
      const answer = await send(gateway.url, {
        path: '/api/v1/boards/images',
        headers: { authorization: member, 'content-type': 'application/octet-stream', ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) },
        body,
        timeoutMs: 20_000,
      });
      expect({ chunked, status: answer.status }).toEqual({ chunked, status: 413 });
      expect(envelopeOf(answer)).toEqual(TOO_LARGE);
    }
    // An ordinary body over its 1 MB limit too.
    const answer = await send(gateway.url, { path: '/api/v1/boards', body: Buffer.alloc(3 * 1_048_576, 0x20), timeoutMs: 20_000 });
    expect(answer.status).toBe(413);
    expect(envelopeOf(answer)).toEqual(TOO_LARGE);
    expect(gateway.alive()).toBe(true);
  });
});
