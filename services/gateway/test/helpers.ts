import http from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** The URL of a loopback port nobody listens on (connections to it are refused). */
export async function refusedUrl(): Promise<string> {
  const { url, close } = await serveLocally(() => undefined);
  await close();
  return url;
}
