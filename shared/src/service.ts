import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from './logger';

export async function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

/**
 * Closes in order on SIGTERM/SIGINT: stop taking requests, then the closers (relays, consumers,
 * connections). A second signal or a 10 s stall exits at once.
 */
export function shutdownOn(logger: Logger, server: Server, closers: Array<() => Promise<unknown>>): void {
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    logger.info('shutting down', { signal });
    setTimeout(() => process.exit(1), 10_000).unref();
    server.closeIdleConnections();
    await new Promise((resolve) => server.close(resolve));
    for (const close of closers) await close().catch((err: Error) => logger.warn('close failed', { error: err.message }));
    process.exit(0);
  };
  process.on('SIGTERM', (s) => void stop(s));
  process.on('SIGINT', (s) => void stop(s));
}

/** Logs a start-up failure (bad config, unreachable store) and exits non-zero. */
export function exitOnStartupFailure(logger: Logger | undefined, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (logger) logger.error('start-up failed', { error: message });
  else console.error(`start-up failed: ${message}`);
  process.exit(1);
}
