import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createLogger, generateDevKeyPair } from '@binzip/shared';
import { configSchema } from '../src/config';
import { buildGateway, listenGateway, type Gateway } from '../src/gateway';

/** Real upstreams for the gateway's tests: HTTP servers on loopback, never mocks. */

export interface LocalServer {
  server: http.Server;
  url: string;
  port: number;
  /** Ends every connection (kept-alive ones too) and stops listening. */
  close: () => Promise<void>;
}

/** Listens on a free loopback port with the given handler (or a server already set up). */
export async function serveLocally(handler: http.RequestListener | http.Server): Promise<LocalServer> {
  const server = handler instanceof http.Server ? handler : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The URL of a loopback port nobody listens on (connections to it are refused).
 *
 * A port that was free a moment ago is not enough: with jest's workers binding port 0 all the time, another suite
 * could take it (and a test server that never answers turns "refused" into a 10 s timeout, as CI once saw). Port 1
 * is below the ephemeral range, so no `listen(0)` and no outgoing connection ever lands on it; the check proves
 * nothing else on the machine does.
 */
export async function refusedUrl(): Promise<string> {
  const port = 1;
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error(`something listens on 127.0.0.1:${port}; the refused-connection tests need it free`));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve() : reject(err)));
  });
  return `http://127.0.0.1:${port}`;
}

const replicaKeys = generateDevKeyPair();

/** A listening gateway whose houses route has the given instances (the replica tests), with extra settings. */
export async function gatewayInFrontOf(
  houses: readonly string[],
  settings: Record<string, string> = {},
): Promise<{ gateway: Gateway; url: string; close: () => void }> {
  const config = configSchema.parse({ JWT_PUBLIC_KEY: replicaKeys.publicKey, HOUSES_URLS: houses.join(','), LOG_LEVEL: 'silent', ...settings });
  const gateway = buildGateway({ config, logger: createLogger('gateway-test', 'silent') });
  const server = await listenGateway(gateway, 0, '127.0.0.1');
  return {
    gateway,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
