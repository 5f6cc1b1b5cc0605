import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import os from 'node:os';
import { Counter, metricsRegistry } from '@binzip/shared';
import bcrypt from 'bcrypt';

/**
 * Default number of bcrypt computations at once: every core but one, at least one. A cost-10 hash is tens of
 * milliseconds of CPU; unbounded, a burst of sign-ins fills libuv's whole thread pool (4 threads) and takes
 * every core from the requests that are cheap.
 */
export const defaultPasswordHashConcurrency = (): number => Math.max(1, os.availableParallelism() - 1);

/** How long a password bcrypt accepted is remembered (PASSWORD_CHECK_MEMORY_SECONDS; 0 turns it off). */
export const DEFAULT_PASSWORD_CHECK_MEMORY_SECONDS = 600;
/** Accounts remembered at most per process; the least recently verified go first. */
export const PASSWORD_CHECK_MEMORY_ENTRIES = 20_000;

export interface PasswordHasherOptions {
  /** Milliseconds a verified password is remembered; 0 asks bcrypt every time. */
  rememberMs?: number;
  maxRemembered?: number;
  /** Milliseconds clock (tests move it). */
  now?: () => number;
}

/** How password checks were answered: `memory` (a password verified moments ago) or `bcrypt`. */
const passwordChecks = new Counter({
  name: 'binzip_password_checks_total',
  help: 'Password checks by how they were answered: from the memory of verified passwords, or by bcrypt',
  labelNames: ['answered_by'] as const,
  registers: [metricsRegistry],
});

interface Remembered {
  mac: Buffer;
  expiresAt: number;
}

/**
 * bcrypt with a bounded number of hashes and comparisons in flight, and a short memory of passwords it accepted.
 *
 * The queue: bcrypt's async functions run on libuv's thread pool, never on the event loop; the queue in front
 * of them makes a burst of sign-ins wait its turn (first come, first served) instead of competing with every
 * other request for the cores.
 *
 * The memory (the credential cache of Elasticsearch's realms and Apache's mod_authn_socache): after bcrypt
 * accepted a password for a stored hash, an HMAC of it under a key that lives only in this process's memory is
 * kept for `rememberMs`, keyed by that stored hash, and the same password for the same hash is accepted without
 * bcrypt until then. Why this stays safe:
 * - Only accepted passwords are remembered, so every wrong guess still costs a full bcrypt (and a slot of the
 *   per-account attempt limit, which the callers take before asking): guessing is exactly as slow as before.
 * - The key is the stored hash itself, so a password change, a reset or a withdrawal (each writes a new hash)
 *   leaves nothing behind that could match.
 * - A faster answer only ever tells the caller that the password they already know is right.
 * - Nothing is written anywhere; the HMAC key is random per process, so a copy of the entries outside the
 *   process is useless. What it gives up: someone who can read this process's memory can test guesses against
 *   the remembered HMACs at SHA-256 speed, for the accounts signed in during the last `rememberMs` (the same
 *   person could read the passwords themselves as they arrive). Set PASSWORD_CHECK_MEMORY_SECONDS=0 to trade
 *   that for a bcrypt on every sign-in.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly remembered = new Map<string, Remembered>();
  private readonly macKey = randomBytes(32);
  private readonly rememberMs: number;
  private readonly maxRemembered: number;
  private readonly now: () => number;
  /** Comparisons answered from memory and by bcrypt (the benchmark and the tests read them). */
  readonly checks = { remembered: 0, computed: 0 };

  constructor(
    readonly cost: number,
    readonly concurrency: number = defaultPasswordHashConcurrency(),
    options: PasswordHasherOptions = {},
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`password hash concurrency must be a positive integer, got ${concurrency}`);
    this.rememberMs = options.rememberMs ?? DEFAULT_PASSWORD_CHECK_MEMORY_SECONDS * 1000;
    this.maxRemembered = options.maxRemembered ?? PASSWORD_CHECK_MEMORY_ENTRIES;
    this.now = options.now ?? Date.now;
  }

  hash(password: string): Promise<string> {
    return this.queued(() => bcrypt.hash(password, this.cost));
  }

  async matches(password: string, hash: string): Promise<boolean> {
    if (this.acceptRemembered(password, hash)) return true;
    const accepted = await this.compare(password, hash);
    if (accepted) this.remember(hash, this.macOf(password));
    return accepted;
  }

  /** Whether bcrypt accepted this password for this hash within the last `rememberMs` (a look-up: no bcrypt, no queue, not counted). */
  remembers(password: string, hash: string): boolean {
    if (this.rememberMs <= 0 || typeof password !== 'string' || typeof hash !== 'string') return false;
    const entry = this.remembered.get(hash);
    if (!entry) return false;
    if (entry.expiresAt <= this.now()) {
      this.remembered.delete(hash);
      return false;
    }
    return timingSafeEqual(entry.mac, this.macOf(password));
  }

  /** A check answered from memory when `remembers`, counted as one (`matches` and the sign-in's fast path). */
  acceptRemembered(password: string, hash: string): boolean {
    if (!this.remembers(password, hash)) return false;
    this.checks.remembered++;
    passwordChecks.inc({ answered_by: 'memory' });
    return true;
  }

  /** Computations started and not finished (at most `concurrency`), and those waiting for a slot. */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  private compare(password: string, hash: string): Promise<boolean> {
    this.checks.computed++;
    passwordChecks.inc({ answered_by: 'bcrypt' });
    return this.queued(() => bcrypt.compare(password, hash));
  }

  private macOf(password: string): Buffer {
    return createHmac('sha256', this.macKey).update(password, 'utf8').digest();
  }

  private remember(hash: string, mac: Buffer): void {
    if (this.rememberMs <= 0) return;
    // Re-inserted at the end: the Map's order is the order of last verification, so the first key is the oldest.
    this.remembered.delete(hash);
    this.remembered.set(hash, { mac, expiresAt: this.now() + this.rememberMs });
    if (this.remembered.size > this.maxRemembered) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
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
