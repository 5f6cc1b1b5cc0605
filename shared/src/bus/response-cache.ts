import { createHash } from 'node:crypto';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { RequestHandler, Response } from 'express';
import type { EventBus } from './connection';

/** Core-NATS subject on which an instance announces that it wrote, so the service's other instances forget too. */
export const cacheChangedSubject = (service: string): string => `cache.${service}.changed`;

interface Entry {
  tag: string;
  body: string;
  etag: string;
  expiresAt: number;
}

export interface ResponseCacheOptions {
  /** Milliseconds clock (tests move it). */
  now?: () => number;
  /** Answers kept at most; the oldest go first. */
  maxEntries?: number;
  /** false: every route answers itself (the services' domain tests, which change data behind the API). */
  enabled?: boolean;
}

const weakEtag = (body: string): string => `W/"${createHash('sha1').update(body).digest('base64url')}"`;

/**
 * A short-lived, per-process store of public GET answers, the way a busy site keeps its hottest pages:
 * the first anonymous request of a URL pays for the queries, the next ones within the route's TTL get the same
 * bytes. Rules:
 * - Only requests without an `Authorization` header are served from it or stored: an answer that may depend on
 *   the caller (`isScraped`, a member's own view) is never shared, and a member always sees his own write at once.
 * - Every write this process answers successfully forgets the service's answers at once and is announced on
 *   core NATS (`cache.<service>.changed`), so the other instances forget too; the events the services publish
 *   (comments) and the user projection, once it stored a snapshot (nicknames), do the same for data that
 *   changes elsewhere. The TTL bounds what a lost
 *   announcement can cost.
 * - An answer that was being computed while the data changed is not stored (a generation per tag).
 * - Concurrent requests for an answer being computed wait for it: the store is asked once per page and TTL.
 * - Every answer of a cached route carries an `ETag`; Express answers a matching `If-None-Match` with 304.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private readonly computing = new Map<string, Promise<Entry | undefined>>();
  private readonly generations = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly enabled: boolean;
  private subscriptions: Subscription[] = [];
  private connection: NatsConnection | undefined;
  private changedSubject: string | undefined;
  hits = 0;
  misses = 0;

  constructor(options: ResponseCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? 5_000;
    this.enabled = options.enabled ?? true;
  }

  /** Middleware for one public GET route: answers from memory when fresh, else lets the route answer and keeps it. */
  route(tag: string, ttlMs: number): RequestHandler {
    return (req, res, next) => {
      if (!this.enabled || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
      const shareable = req.headers.authorization === undefined;
      const key = `${tag} ${req.originalUrl}`;
      const compute = (settle?: (entry: Entry | undefined) => void) => {
        this.misses++;
        const generation = this.generationOf(tag);
        res.json = (body: unknown) => {
          const text = JSON.stringify(body);
          const etag = weakEtag(text);
          let stored: Entry | undefined;
          if (res.statusCode === 200 && shareable && generation === this.generationOf(tag)) {
            stored = { tag, body: text, etag, expiresAt: this.now() + ttlMs };
            this.store(key, stored);
          }
          settle?.(stored);
          this.reply(res, etag, text, shareable);
          return res;
        };
        next();
      };
      if (!shareable) return compute();
      const entry = this.entries.get(key);
      if (entry && entry.expiresAt > this.now()) {
        this.hits++;
        this.reply(res, entry.etag, entry.body, true);
        return;
      }
      if (entry) this.entries.delete(key);
      // Requests for an answer already being computed wait for it instead of asking the store again (a busy
      // page's expiry would otherwise send every concurrent request to the store at once).
      const pending = this.computing.get(key);
      if (pending) {
        void pending.then((shared) => {
          if (!shared) return compute();
          this.hits++;
          this.reply(res, shared.etag, shared.body, true);
        });
        return;
      }
      let settle: (entry: Entry | undefined) => void = () => undefined;
      const computing = new Promise<Entry | undefined>((resolve) => (settle = resolve));
      this.computing.set(key, computing);
      const done = (shared: Entry | undefined) => {
        if (this.computing.get(key) === computing) this.computing.delete(key);
        settle(shared);
      };
      // An answer that never reaches res.json (a failure, a client gone) lets the waiting requests compute their own.
      res.on('close', () => done(undefined));
      compute(done);
    };
  }

  /** Forgets every answer under `tag`, or every answer when no tag is given. */
  invalidate(tag?: string): void {
    const tags = tag === undefined ? new Set([...this.entries.values()].map((e) => e.tag).concat([...this.generations.keys()])) : new Set([tag]);
    for (const t of tags) this.generations.set(t, this.generationOf(t) + 1);
    for (const [key, entry] of this.entries) if (tags.has(entry.tag)) this.entries.delete(key);
  }

  /**
   * Mounted before the routes: a write (any method but GET/HEAD/OPTIONS) answered below 400 forgets this
   * process's answers and tells the other instances (after `listen`).
   */
  forgetOnWrites(): RequestHandler {
    return (req, res, next) => {
      if (!this.enabled || req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
      res.on('finish', () => {
        if (res.statusCode >= 400) return;
        this.invalidate();
        if (this.connection && this.changedSubject) this.connection.publish(this.changedSubject);
      });
      next();
    };
  }

  /**
   * Subscribes (core NATS, every instance its own subscription) to the service's write announcements and to the
   * given event subjects (unprefixed, wildcards allowed); each message forgets every answer.
   */
  listen(bus: EventBus, service: string, eventSubjects: readonly string[]): void {
    this.connection = bus.connection;
    this.changedSubject = bus.subject(cacheChangedSubject(service));
    for (const subject of [cacheChangedSubject(service), ...eventSubjects]) {
      this.subscriptions.push(bus.connection.subscribe(bus.subject(subject), { callback: () => this.invalidate() }));
    }
  }

  stop(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    this.connection = undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  private generationOf(tag: string): number {
    return this.generations.get(tag) ?? 0;
  }

  private store(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** Express's `res.send` turns a matching `If-None-Match` into 304 (`req.fresh`). */
  private reply(res: Response, etag: string, body: string, shareable: boolean): void {
    res.setHeader('ETag', etag);
    // Revalidate every time (the ETag makes that cheap); a member's answer stays in his own client.
    res.setHeader('Cache-Control', shareable ? 'public, no-cache' : 'private, no-cache');
    res.type('application/json');
    res.send(body);
  }
}
