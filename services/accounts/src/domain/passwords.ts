import os from 'node:os';
import bcrypt from 'bcrypt';

/**
 * Default number of bcrypt computations at once: every core but one, at least one. A cost-10 hash is tens of
 * milliseconds of CPU; unbounded, a burst of sign-ins fills libuv's whole thread pool (4 threads) and takes
 * every core from the requests that are cheap.
 */
export const defaultPasswordHashConcurrency = (): number => Math.max(1, os.availableParallelism() - 1);

/**
 * bcrypt with a bounded number of hashes and comparisons in flight. bcrypt's async functions run on libuv's
 * thread pool, never on the event loop; the queue in front of them makes a burst of sign-ins wait its turn
 * (first come, first served) instead of competing with every other request for the cores.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly cost: number,
    readonly concurrency: number = defaultPasswordHashConcurrency(),
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`password hash concurrency must be a positive integer, got ${concurrency}`);
  }

  hash(password: string): Promise<string> {
    return this.queued(() => bcrypt.hash(password, this.cost));
  }

  matches(password: string, hash: string): Promise<boolean> {
    return this.queued(() => bcrypt.compare(password, hash));
  }

  /** Computations started and not finished (at most `concurrency`), and those waiting for a slot. */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  private async queued<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so `running` never drops below what is in flight.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
