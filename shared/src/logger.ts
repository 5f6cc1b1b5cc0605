import winston from 'winston';
import { currentRequestId } from './context';

const addRequestId = winston.format((info) => {
  const requestId = currentRequestId();
  if (requestId && info.requestId === undefined) info.requestId = requestId;
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
