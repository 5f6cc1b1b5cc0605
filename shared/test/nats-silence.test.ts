/**
 * Issue 37: a NATS server that goes silent with its sockets open (a frozen node, a partition) is noticed by the
 * pings within seconds (`natsClientOptions`), not after nats.js's default of minutes: the connection counts it as
 * gone and reconnects, and the response cache stops trusting what it keeps (tested where the cache is). A private
 * nats-server, frozen with SIGSTOP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '../../scripts/lib/nats';
import { createLogger, EventBus } from '../src';
import { NATS_MAX_PINGS_OUT, NATS_PING_INTERVAL_MS } from '../src/bus/nats-client';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nats-silence-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('a server frozen with its connection open is left within the pings, and found again once it answers', async () => {
  const server = await startNatsServer({ storeDir: path.join(dataDir, 'store') });
  const bus = await EventBus.connect({ url: server.uri, name: 'nats-silence', logger: createLogger('nats-silence', 'silent') });
  const seen: Array<{ type: string; at: number }> = [];
  void (async () => {
    for await (const status of bus.connection.status()) seen.push({ type: status.type, at: Date.now() });
  })();
  try {
    const frozenAt = Date.now();
    server.signal('SIGSTOP');
    const bound = NATS_PING_INTERVAL_MS * (NATS_MAX_PINGS_OUT + 2);
    while (!seen.some((s) => s.type === 'disconnect') && Date.now() - frozenAt < bound) await new Promise((r) => setTimeout(r, 200));
    const left = seen.find((s) => s.type === 'disconnect');
    expect(left).toBeDefined();
    expect(left!.at - frozenAt).toBeLessThan(bound);
    server.signal('SIGCONT');
    const thawedAt = Date.now();
    while (!seen.some((s) => s.type === 'reconnect') && Date.now() - thawedAt < 15_000) await new Promise((r) => setTimeout(r, 200));
    expect(seen.some((s) => s.type === 'reconnect')).toBe(true);
    await bus.connection.flush();
  } finally {
    server.signal('SIGCONT');
    await bus.close();
    await server.stop();
  }
}, 60_000);
