import type { Connection } from 'mongoose';
import type { Logger } from '../core/telemetry';
import { dependencyUp } from '../core/telemetry';
import type { EventBus } from '../bus/connection';

/** How long a store or broker may stay unreachable before the process gives up (`OUTAGE_EXIT_MS`). */
export const DEFAULT_OUTAGE_EXIT_MS = 30_000;

/** One dependency the process cannot work without; `check` rejects while it is unreachable. */
export interface DependencyProbe {
  name: string;
  check: () => Promise<void>;
  /** A dependency the process works without (NATS): watched, logged and exported, never a reason to exit. */
  tolerated?: boolean;
}

export interface OutageWatchdogOptions {
  probes: DependencyProbe[];
  /** A dependency failing every check for longer than this ends the process (via `onOutage`). */
  limitMs: number;
  /** Between checks; default a fifth of the limit, between 250 ms and 5 s. */
  intervalMs?: number;
  /** How long one check may take before it counts as failed; default the interval, at least 1 s. */
  checkTimeoutMs?: number;
  /** Called once, for the first dependency found down beyond the limit. */
  onOutage: (name: string, downForMs: number) => void;
  logger: Logger;
  /** The clock (tests drive it). */
  now?: () => number;
}

/**
 * Short outages are ridden out by the drivers (they reconnect by themselves); one that lasts beyond the limit
 * is not trusted to end that way (a driver once stayed disconnected for good after a 5 s store outage), so the
 * process exits non-zero and its supervisor starts a fresh one. Checks are active (a ping), not the drivers'
 * own connection events, so a driver that believes itself connected but cannot reach anything is caught too.
 */
export class OutageWatchdog {
  private readonly now: () => number;
  private readonly lastUp = new Map<string, number>();
  private readonly down = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private fired = false;

  constructor(private readonly options: OutageWatchdogOptions) {
    this.now = options.now ?? Date.now;
    for (const probe of options.probes) this.lastUp.set(probe.name, this.now());
  }

  get intervalMs(): number {
    return this.options.intervalMs ?? Math.min(5_000, Math.max(250, Math.floor(this.options.limitMs / 5)));
  }

  start(): void {
    let lastTick = this.now();
    this.timer = setInterval(() => {
      const tick = this.now();
      // A tick far later than its interval means the process itself was not running (SIGSTOP, a paused VM or
      // container, a debugger) or its event loop was blocked: that time is nobody's outage. Counted, a 30 s freeze
      // made the first check after it (a driver still finding its connections stale) exit the process at once.
      const missedMs = tick - lastTick - this.intervalMs;
      if (missedMs > this.intervalMs) this.discount(missedMs);
      lastTick = tick;
      // A check that is still waiting (a hung ping) is not stacked up with another.
      if (!this.running) this.running = this.checkOnce().finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Takes time the process did not run off every dependency's outage. */
  private discount(ms: number): void {
    for (const [name, at] of this.lastUp) this.lastUp.set(name, at + ms);
  }

  /** Runs every probe once and acts on the results (exported for tests, which call it with their own clock). */
  async checkOnce(): Promise<void> {
    const timeoutMs = this.options.checkTimeoutMs ?? Math.max(this.intervalMs, 1_000);
    await Promise.all(
      this.options.probes.map(async (probe) => {
        try {
          await settleWithin(probe.check(), timeoutMs, `${probe.name} did not answer within ${timeoutMs} ms`);
          this.lastUp.set(probe.name, this.now());
          dependencyUp.set({ dependency: probe.name }, 1);
          if (this.down.delete(probe.name)) this.options.logger.warn('dependency reachable again', { dependency: probe.name });
        } catch (err) {
          dependencyUp.set({ dependency: probe.name }, 0);
          if (!this.down.has(probe.name)) {
            this.down.add(probe.name);
            this.options.logger.warn('dependency unreachable', { dependency: probe.name, error: (err as Error).message });
          }
        }
      }),
    );
    if (this.fired) return;
    for (const probe of this.options.probes) {
      const downForMs = this.now() - (this.lastUp.get(probe.name) ?? this.now());
      if (!probe.tolerated && this.down.has(probe.name) && downForMs > this.options.limitMs) {
        this.fired = true;
        this.options.logger.error('dependency unreachable beyond the limit; exiting so the supervisor restarts the process', {
          dependency: probe.name,
          downForMs,
          limitMs: this.options.limitMs,
        });
        this.options.onOutage(probe.name, downForMs);
        return;
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}

/** The store answers a ping (through the driver's server selection, so a lost connection shows). */
export function mongoProbe(connection: Connection): DependencyProbe {
  return {
    name: 'MongoDB',
    check: async () => {
      const db = connection.db;
      if (!db) throw new Error('not connected');
      await db.command({ ping: 1 });
    },
  };
}

/** The broker answers a round trip (rejects at once while the client is disconnected). */
export function natsProbe(bus: EventBus): DependencyProbe {
  return {
    name: 'NATS',
    // Reads never need it and events wait in the outbox; the client reconnects for ever by itself.
    tolerated: true,
    check: async () => {
      await bus.connection.rtt();
    },
  };
}

/** Rejects with `message` when `promise` has not settled within `ms`. */
export function settleWithin<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
