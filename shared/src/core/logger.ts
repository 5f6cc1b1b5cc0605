import winston from 'winston';
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

/** JSON lines on stdout; `LOG_LEVEL=silent` turns logging off (the test default). */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    defaultMeta: { service },
    format: winston.format.combine(addRequestId(), winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
