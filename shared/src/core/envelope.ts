import type { Response } from 'express';

export const SUCCESS_MESSAGE = '성공';

export interface Envelope<T = unknown> {
  code: string;
  message: string;
  data?: T;
}

/** `data` is left out entirely (not null) when there is nothing to return. */
export function successEnvelope<T>(data?: T): Envelope<T> {
  return data === undefined ? { code: 'SUCCESS', message: SUCCESS_MESSAGE } : { code: 'SUCCESS', message: SUCCESS_MESSAGE, data };
}

export function errorEnvelope(code: string, message: string): Envelope<never> {
  return { code, message };
}

export function sendOk<T>(res: Response, data?: T): void {
  res.status(200).json(successEnvelope(data));
}
