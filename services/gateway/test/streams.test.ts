/**
 * Issue 38: the notifications stream through the gateway's own forwarder. Streams stay out of the pool and the
 * queue ordinary requests use (10 open streams with room for 2 sockets and no queue leave ordinary requests
 * answered), and once a stream has begun no answer timeout cuts it (silence past UPSTREAM_TIMEOUT_MS).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, generateDevKeyPair } from '@binzip/shared';
import { eventually } from '../../../test/support';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway } from '../src/gateway';

const keys = generateDevKeyPair();

it('holds streams apart from the pool and queue, with no answer timeout once they have begun', async () => {
  const streams = new Set<http.ServerResponse>();
  const upstream = http.createServer((req, res) => {
    if (req.url?.startsWith('/api/v1/notifications/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 3000\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    // An ordinary request is answered after a moment, so the two pooled sockets are really taken meanwhile.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'SUCCESS', message: '성공', data: 1 }));
    }, 50);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const config = configSchema.parse({
    JWT_PUBLIC_KEY: keys.publicKey,
    NOTIFICATIONS_URLS: upstreamUrl,
    UPSTREAM_MAX_SOCKETS: '2',
    UPSTREAM_MAX_QUEUED: '0',
    UPSTREAM_TIMEOUT_MS: '1000',
  });
  const gateway = buildGateway({ config, logger: createLogger('streams-test', 'silent') });
  const server = await listenGateway(gateway, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: http.ClientRequest[] = [];
  try {
    const received: string[] = [];
    for (let i = 0; i < 10; i++) {
      const req = http.get(`${base}/api/v1/notifications/stream`, { agent: false }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => received.push(`${i}:${chunk}`));
      });
      req.on('error', () => undefined);
      clients.push(req);
    }
    await eventually(() => streams.size === 10);

    // Ordinary requests still find their pool and queue free: 2 sockets, no queue, 2 at a time answered.
    const get = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${base}/api/v1/notifications`, { agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
    expect(await Promise.all([get(), get()])).toEqual([200, 200]);

    // Silence past the gateway's 1 s answer timeout, then an event: it still arrives, on every stream.
    await new Promise((r) => setTimeout(r, 2_500));
    for (const res of streams) res.write('event: notification\ndata: {}\n\n');
    await eventually(() => received.filter((r) => r.includes('event: notification')).length === 10);
    expect(received.some((r) => r.includes('C0000'))).toBe(false);
  } finally {
    clients.forEach((c) => c.destroy());
    server.closeAllConnections();
    server.close();
    upstream.closeAllConnections();
    upstream.close();
  }
});
