/**
 * The launcher of `npm start` and the end-to-end tests (scripts/lib/system.ts): a port chosen free can be taken by
 * another server before the process binds it, and that server's `/health` must not pass for the process's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateDevKeyPair } from '@binzip/shared';
import { PortTakenError, startProcess } from '../../scripts/lib/system';

jest.setTimeout(60_000);

/** A server that answers every request 200, as another test's service app would answer `/health`. */
async function impostor(): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"S0000"}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const gatewayEnv = () => ({ JWT_PUBLIC_KEY: generateDevKeyPair().publicKey, LOG_LEVEL: 'silent', NATS_URL: undefined, SHUTDOWN_DRAIN_MS: '0' });

it('refuses a port another server took (its /health answering) instead of reporting that server healthy', async () => {
  const taken = await impostor();
  try {
    const port = (taken.address() as AddressInfo).port;
    const started = startProcess({ name: 'gateway', service: 'gateway', port, env: gatewayEnv(), restartBackoffMs: [], readyTimeoutMs: 20_000 });
    await expect(started).rejects.toBeInstanceOf(PortTakenError);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

it('reports healthy a process that said it listens on its own port, and starts it again there', async () => {
  const probe = await impostor();
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const gateway = await startProcess({ name: 'gateway', service: 'gateway', port, env: gatewayEnv(), restartBackoffMs: [], readyTimeoutMs: 20_000 });
  try {
    const health = await fetch(`${gateway.url}/health`).then((res) => res.json() as Promise<{ data: { service: string } }>);
    expect(health.data.service).toBe('gateway');
    const firstPid = gateway.child.pid;
    await gateway.restart();
    expect(gateway.child.pid).not.toBe(firstPid);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  } finally {
    await gateway.stop();
  }
});
