import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of one request carries, without threading it through calls. */
export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
