/**
 * How the gateway passes an upstream answer on once it has begun (forward.ts `passOn`): whole and in order however
 * slowly the client reads, cut for the client when the upstream is cut in the middle, and taken down upstream when
 * the client goes away.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, generateDevKeyPair } from '@binzip/shared';
import { eventually } from '../../../test/support';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';

const keys = generateDevKeyPair();
/** A body far larger than the sockets' buffers on both hops, so a client that does not read holds the upstream back. */
const LARGE = Buffer.alloc(64 * 1024 * 1024, 0).map((_, i) => i % 251);

let upstream: http.Server;
let server: http.Server;
let base: string;
const upstreamClosed: string[] = [];
let largeSentAt = 0;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    res.on('close', () => upstreamClosed.push(req.url ?? ''));
    if (req.url?.startsWith('/api/v1/boards/large')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(LARGE.length) });
      res.end(LARGE, () => (largeSentAt = Date.now()));
      return;
    }
    if (req.url?.startsWith('/api/v1/boards/cut')) {
      // Half an answer, then the connection is lost.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"code":"SUCCESS","data":"');
      setTimeout(() => req.socket.destroy(), 50);
      return;
    }
    if (req.url?.startsWith('/api/v1/notifications/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 3000\n\n');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const config = configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey, COMMUNITY_URLS: upstreamUrl, NOTIFICATIONS_URLS: upstreamUrl });
  server = await listenGateway(buildGateway({ config, logger: createLogger('pass-on-test', 'silent') }), 0, '127.0.0.1');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  upstream.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => upstream.close(resolve));
});

it('passes a large answer whole and in order to a client that reads slowly, holding the upstream back meanwhile', async () => {
  let resumedAt = 0;
  const body = await new Promise<Buffer>((resolve, reject) => {
    http
      .get(`${base}/api/v1/boards/large`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        // Not read for a while: the gateway must hold back rather than lose or reorder anything.
        res.pause();
        setTimeout(() => {
          resumedAt = Date.now();
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.resume();
        }, 500);
        res.on('error', reject);
      })
      .on('error', reject);
  });
  expect(body.length).toBe(LARGE.length);
  expect(body.equals(LARGE)).toBe(true);
  // The gateway read no faster than the client: the upstream could not hand over its last byte before the client
  // began to read (a gateway that buffered the whole answer would have taken it at once). The upstream's own write
  // callback may run after the client's last byte in this one process: wait for it rather than read it unset.
  await eventually(() => largeSentAt > 0);
  expect(largeSentAt).toBeGreaterThanOrEqual(resumedAt);
});

it("cuts the client's answer when the upstream is cut in the middle of it", async () => {
  const outcome = await new Promise<{ complete: boolean; received: string }>((resolve) => {
    http
      .get(`${base}/api/v1/boards/cut`, { agent: false }, (res) => {
        let received = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (received += chunk));
        res.on('error', () => undefined);
        res.on('close', () => resolve({ complete: res.complete, received }));
      })
      .on('error', () => resolve({ complete: false, received: '' }));
  });
  expect(outcome.complete).toBe(false);
  expect(outcome.received.length).toBeLessThan(1000);
});

it('takes the upstream answer down when the client goes away', async () => {
  const req = http.get(`${base}/api/v1/notifications/stream`, { agent: false });
  req.on('error', () => undefined);
  await new Promise<void>((resolve) => req.on('response', () => resolve()));
  req.destroy();
  await eventually(() => upstreamClosed.includes('/api/v1/notifications/stream'), 5_000);
});
