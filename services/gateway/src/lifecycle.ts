import type { Server } from 'node:http';
import type { Logger } from '@binzip/shared/dist/lite';

/*
 * The gateway's copies of `shutdownOn` and `exitOnStartupFailure` (shared/src/service.ts): that module also
 * holds the service runtime, and importing it loads mongoose and nats, which the gateway never uses (about a
 * third of its idle memory). Same behaviour; keep them in step.
 */

/**
 * Closes in order on SIGTERM/SIGINT (exit 0): stop taking requests, then the closers. A second signal or a
 * 10 s stall exits at once, non-zero.
 */
export function shutdownOn(logger: Logger, server: Server, closers: Array<() => Promise<unknown>>): void {
  let closing = false;
  const stop = (reason: string, exitCode: number) => {
    if (closing) process.exit(exitCode || 1);
    closing = true;
    logger.info('shutting down', { reason, exitCode });
    setTimeout(() => process.exit(1), 10_000).unref();
    void (async () => {
      server.closeIdleConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const close of closers) await close().catch((err: Error) => logger.warn('close failed', { error: err.message }));
      process.exit(exitCode);
    })();
  };
  process.on('SIGTERM', (signal) => stop(signal, 0));
  process.on('SIGINT', (signal) => stop(signal, 0));
}

/** Logs a start-up failure (bad config) and exits non-zero. */
export function exitOnStartupFailure(logger: Logger | undefined, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (logger) logger.error('start-up failed', { error: message });
  else console.error(`start-up failed: ${message}`);
  process.exit(1);
}
