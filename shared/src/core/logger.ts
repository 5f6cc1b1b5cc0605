import SonicBoom from 'sonic-boom';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { currentRequestId } from './context';
import { currentTraceIds } from './tracing';

const addRequestId = winston.format((info) => {
  const requestId = currentRequestId();
  if (requestId && info.requestId === undefined) info.requestId = requestId;
  // With tracing on, a line written inside a traced request or event names its trace (see tracing.ts).
  const traced = currentTraceIds();
  if (traced && info.traceId === undefined) {
    info.traceId = traced.traceId;
    info.spanId = traced.spanId;
  }
  return info;
});

export type Logger = winston.Logger;

let stdout: SonicBoom | undefined;

/**
 * The process's standard output as an asynchronous, self-batching stream (pino's sonic-boom). Written through
 * `process.stdout`, a line is one synchronous write(2) on the event loop: on a pipe (compose, Kubernetes, the
 * launcher) that was about 7 % of a busy service's profile in the site benchmark, one system call per access
 * line, blocking the event loop whenever the reader of the pipe fell behind. Here lines are written off the
 * event loop, together: once 4 KiB are waiting, and every LOG_FLUSH_MS whatever is waiting. What is still
 * buffered when the process exits (fatal errors end it with `process.exit`) is written synchronously on `exit`.
 */
const LOG_FLUSH_MS = 100;

function stdoutStream(): SonicBoom {
  if (!stdout) {
    const stream = new SonicBoom({ fd: process.stdout.fd, sync: false, minLength: 4096, periodicFlush: LOG_FLUSH_MS });
    process.on('exit', () => {
      try {
        stream.flushSync();
      } catch {
        // Standard output already gone: nothing left to tell anyone.
      }
    });
    stdout = stream;
  }
  return stdout;
}

/** winston's formatted line of an entry (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

/** Writes each formatted line to the batching standard output above. */
class StdoutTransport extends TransportStream {
  override log(info: unknown, next: () => void): void {
    stdoutStream().write(`${String((info as Record<symbol, unknown>)[MESSAGE])}\n`);
    next();
  }
}

/** JSON lines on stdout; `LOG_LEVEL=silent` turns logging off (the test default). */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    defaultMeta: { service },
    format: winston.format.combine(addRequestId(), winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [new StdoutTransport()],
  });
}
