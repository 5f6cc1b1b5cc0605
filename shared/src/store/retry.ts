import { TooManyRequestsError } from '../core/wire';

/** What an attempt of `retryOnConflict` returns when its conditional write matched nothing (it lost a race). */
export const CONFLICT: unique symbol = Symbol('conflict');
export type Conflict = typeof CONFLICT;

export interface RetryOnConflictOptions {
  /** Lost races tolerated before giving up; each loss means the document really changed meanwhile. */
  attempts?: number;
  /** Waits before the next attempt (attempt number from 1); a short random pause spreads racing writers apart. */
  pause?: (attempt: number) => Promise<void>;
}

export const DEFAULT_CONFLICT_ATTEMPTS = 10;

const jitter = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));

/**
 * The one compare-and-set loop: runs `attempt` (read, decide, conditional write) until it returns something
 * other than CONFLICT. An attempt may throw (an AppError for a rule the fresh read broke) to stop at once.
 * A document that keeps changing under the request is answered with C0004 (429, try again shortly), never
 * a 500: the client did nothing wrong and the same request is likely to succeed a moment later.
 */
export async function retryOnConflict<T>(attempt: (attemptNumber: number) => Promise<T | Conflict>, options: RetryOnConflictOptions = {}): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_CONFLICT_ATTEMPTS;
  const pause = options.pause ?? jitter;
  for (let n = 0; n < attempts; n++) {
    if (n > 0) await pause(n);
    const result = await attempt(n);
    if (result !== CONFLICT) return result;
  }
  // The race is over within moments: a retry a second later meets a settled document.
  throw new TooManyRequestsError(1);
}
