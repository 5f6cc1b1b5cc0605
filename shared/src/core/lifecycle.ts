import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import type { Logger } from './telemetry';

/*
 * How a process ends: in order on a signal, a lasting outage or a fatal error. Kept apart from the service
 * runtime (service.ts) so that a process without stores (the gateway) can use it without loading mongoose or nats.
 */

/** Ends the process in order (see `shutdownOn`); `exitCode` 0 for a requested stop, non-zero for a failure. */
export type Shutdown = (reason: string, exitCode: number) => void;

export interface ShutdownOptions {
  /**
   * `SHUTDOWN_DRAIN_MS`: on SIGTERM (a rollout, a scale-down) the process first reports not-ready (`onDrain`)
   * and keeps serving in-flight and new requests this long, so load balancers take it out of rotation before it
   * stops listening. SIGINT (a person at a terminal) and failures do not drain.
   */
  drainMs?: number;
  /** Called once when the drain begins: `/ready` answers 503 from then on. */
  onDrain?: () => void;
}

/**
 * Closes in order on SIGTERM/SIGINT (exit 0), and whenever the returned function is called (a fatal error, a
 * lasting outage: non-zero): drain (SIGTERM only, see `ShutdownOptions`), stop taking requests, then the
 * closers (relays, consumers, connections). A second signal or a 10 s stall after the drain exits at once,
 * non-zero.
 */
export function shutdownOn(logger: Logger, server: Server, closers: Array<() => Promise<unknown>>, options: ShutdownOptions = {}): Shutdown {
  let closing = false;
  const stop = (reason: string, exitCode: number, drainMs: number) => {
    if (closing) process.exit(exitCode || 1);
    closing = true;
    logger.info('shutting down', { reason, exitCode, drainMs });
    setTimeout(() => process.exit(1), drainMs + 10_000).unref();
    void (async () => {
      if (drainMs > 0) {
        options.onDrain?.();
        await new Promise((resolve) => setTimeout(resolve, drainMs));
        logger.info('drain over; closing');
      }
      server.closeIdleConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const close of closers) await close().catch((err: Error) => logger.warn('close failed', { error: err.message }));
      process.exit(exitCode);
    })();
  };
  process.on('SIGTERM', (signal) => stop(signal, 0, options.drainMs ?? 0));
  process.on('SIGINT', (signal) => stop(signal, 0, 0));
  return (reason, exitCode) => stop(reason, exitCode, 0);
}

/**
 * An error nobody handled leaves the process in an unknown state: it is logged (with the request id of the
 * request it belongs to, which the logger takes from the async context the error surfaced in) and the process
 * ends in order, non-zero, so its supervisor starts a clean one. Before the service is up there is nothing to
 * close: it exits at once.
 */
export function exitOnFatalErrors(currentLogger: () => Logger | undefined, currentShutdown: () => Shutdown | undefined): void {
  const onFatal = (kind: 'uncaughtException' | 'unhandledRejection') => (err: unknown) => {
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    const logger = currentLogger();
    if (logger) logger.error('fatal error; shutting down', { kind, error });
    else console.error(`fatal error (${kind}): ${error}`);
    const shutdown = currentShutdown();
    if (shutdown) shutdown(kind, 1);
    else process.exit(1);
  };
  process.on('uncaughtException', onFatal('uncaughtException'));
  process.on('unhandledRejection', onFatal('unhandledRejection'));
}

/** Logs a start-up failure (bad config, unreachable store) and exits non-zero. */
export function exitOnStartupFailure(logger: Logger | undefined, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (logger) logger.error('start-up failed', { error: message });
  else console.error(`start-up failed: ${message}`);
  process.exit(1);
}

/** What a process tells the launcher that started it once its server listens (see `tellLauncherListening`). */
export interface ListeningMessage {
  listening: { port: number; pid: number };
}

/**
 * Tells the launcher that started this process with an IPC channel (scripts/lib/system.ts: `npm start`, the
 * end-to-end tests) that this process, not another, now listens: a port picked free by the launcher can be taken
 * by someone else before the process binds it, and a `/health` answer alone cannot say whose it is. The channel
 * is closed at once, so it neither keeps the process alive nor carries anything else. Without a channel
 * (containers, Kubernetes, `node main.js`) it does nothing.
 */
export function tellLauncherListening(server: Server): void {
  if (!process.send || !process.connected) return;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const message: ListeningMessage = { listening: { port, pid: process.pid } };
  process.send(message, undefined, {}, () => {
    if (process.connected) process.disconnect();
  });
}

/**
 * Turns off V8's allocation-site pretenuring for the rest of the process; every process calls it first. V8
 * allocates straight into the old generation the objects of a code site whose objects survived a young
 * collection, and goes back only when the old generation's survival falls very low. A site that allocates every
 * request's objects can be judged long-lived by one scavenge that found them alive (the young generation just
 * grown, a burst): from then on a gateway put about 75 MB a second into its old generation and collected it every
 * second, for the rest of its life, at 1.3-1.6x its CPU per request (docs/benchmarks.md, "The churning gateway
 * was V8's pretenuring"). A request's objects die young; nothing these processes keep is allocated often enough
 * for pretenuring to save copying.
 */
export function disableAllocationSitePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
