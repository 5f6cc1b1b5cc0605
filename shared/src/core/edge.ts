import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { requestContext } from './telemetry';
import { errorEnvelope, sendOk } from './wire';
import { AppError, ErrorCodes, GatewayFaults, ServiceBusyError, TooManyRequestsError } from './wire';
import type { Logger } from './telemetry';
import { InvalidFieldError, labelledMessage, labelsOf } from './operations';

/**
 * The HTTP edge every process shares, gateway included: request ids, the access log, envelopes for every error,
 * the `trust proxy` setting. Nothing here touches a store or the broker.
 */

export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A well-formed incoming request id, or a new one (a client's id is kept for tracing, never trusted as data). */
export function acceptedRequestId(incoming: unknown): string {
  return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Takes a well-formed incoming request id or makes one, returns it, and scopes the request's logs to it. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = acceptedRequestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    requestContext.run({ requestId: id }, next);
  };
}

/** Probes arrive every few seconds from the gateway and orchestrators: logged only at debug, unless they fail. */
const PROBE_PATHS = new Set(['/health', '/ready']);

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
      const level = PROBE_PATHS.has(path) && res.statusCode < 400 ? 'debug' : 'info';
      logger.log(level, 'request', { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
    });
    next();
  };
}

/** Wraps a use-case: whatever it returns becomes `data`; `undefined` means no `data` member. */
export function handle<T>(fn: (req: Request, res: Response) => Promise<T> | T): RequestHandler {
  return async (req, res) => {
    const data = await fn(req, res);
    sendOk(res, data);
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(AppError.notFound());

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * An error another layer knows how to answer (the store layer: a store that is away is 503, not a fault). It logs
 * what it needs itself and returns the fault to answer, or undefined for errors that are not its own.
 */
export type FaultClassifier = (err: unknown, logger: Logger) => { status: number; code: string; message: string } | undefined;

/**
 * The one place errors become envelopes. Client mistakes are 4xx; a stack never leaves the process. `classifiers`
 * answer the errors of layers this one does not import (the service runtime passes the store's).
 */
export function errorHandler(logger: Logger, classifiers: readonly FaultClassifier[] = []): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof TooManyRequestsError || err instanceof ServiceBusyError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
    if (err instanceof InvalidFieldError) {
      const answer = labelledMessage(err, labelsOf(req));
      logger.info('request value refused', { field: err.field, answer });
      res.status(err.status).json(errorEnvelope(err.code, answer));
      return;
    }
    if (err instanceof AppError) {
      res.status(err.status).json(errorEnvelope(err.code, err.message));
      return;
    }
    const parserError = err as BodyParserError;
    if (parserError?.type === 'entity.too.large') {
      res.status(GatewayFaults.tooLarge.status).json(errorEnvelope(GatewayFaults.tooLarge.code, GatewayFaults.tooLarge.message));
      return;
    }
    if (parserError?.type === 'entity.parse.failed') {
      res.status(400).json(errorEnvelope('C0002', '요청 본문이 올바른 JSON 형식이 아닙니다.'));
      return;
    }
    if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      res.status(400).json(errorEnvelope('C0002', ErrorCodes.C0002.message));
      return;
    }
    if ((err as { code?: number })?.code === 11000) {
      // A uniqueness race the use-case did not pre-check: the value exists, which is the client's concern.
      logger.warn('duplicate key reached the error handler', { error: (err as Error).message });
      res.status(400).json(errorEnvelope('C0002', '이미 존재하는 값입니다.'));
      return;
    }
    for (const classify of classifiers) {
      const fault = classify(err, logger);
      if (fault) {
        res.status(fault.status).json(errorEnvelope(fault.code, fault.message));
        return;
      }
    }
    logger.error('unexpected fault', { error: err instanceof Error ? err.stack : String(err) });
    res.status(500).json(errorEnvelope('C0000', ErrorCodes.C0000.message));
  };
}

/**
 * `TRUST_PROXY` as Express takes it. Express reads a string only as addresses or subnet names, so the env
 * values `false`, `true` and a hop count (`1`) would fail as "invalid IP address": they become the boolean
 * or number they mean. Anything else (`loopback`, `uniquelocal, 10.0.0.1`) is passed on as it is.
 */
export function trustProxySetting(value: string | boolean | number): string | boolean | number {
  if (typeof value !== 'string') return value;
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true') return true;
  if (normalized === 'false' || normalized === '') return false;
  if (/^\d+$/.test(normalized)) return Number(normalized);
  return value;
}
