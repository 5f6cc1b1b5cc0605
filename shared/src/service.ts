import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { errorEnvelope } from './envelope';
import { ErrorCodes } from './errors';
import type { Logger } from './logger';

/**
 * Requests Node's HTTP parser rejects before Express runs (oversized headers or URL, malformed request line)
 * still get an envelope instead of an empty response.
 */
export function answerClientErrors(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  const body = JSON.stringify(errorEnvelope('C0002', ErrorCodes.C0002.message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.on('clientError', answerClientErrors);
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
