import { createHash, randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { RequestHandler, Response } from 'express';
import { Counter } from 'prom-client';
import { metricsRegistry } from '../core/telemetry';
import { natsClientOptions } from './nats-client';
import {
  CACHE_CHANGE_ID_HEADER,
  CACHE_CHANGED_HEADER,
  CACHE_HEARD_HEADER,
  CACHE_OFFER_HEADER,
  CHANGE_ID_NATS_HEADER,
  CHANGES_HEARD_MS,
  offerHeader,
  UNHEARD_TTL_MS,
  type CacheKeyOf,
  type CacheKeys,
  type CacheOffer,
  type CacheScope,
  type RouteCache,
} from '../core/operations';
import type { EventConsumer } from './events';
import type { ConsumeHost } from './streams';

/**
 * Core-NATS subject on which an instance announces that it wrote, so the service's other instances forget too.
 * The payload is `{"keys":[...]}` (`changedAnnouncement`) for a write that declared what it changed; an empty or
 * any other payload (an older instance, the user projection) means everything changed.
 */
export const cacheChangedSubject = (service: string): string => `cache.${service}.changed`;

/** The announcement's payload for a change of `keys`; none (everything changed) without keys. */
export const changedAnnouncement = (keys?: CacheKeys): string | undefined => (keys === undefined ? undefined : JSON.stringify({ keys }));

/** What `listen` needs of the bus: its connection and the prefix of its subjects. */
export type AnnouncementHost = Pick<ConsumeHost, 'connection' | 'subject'>;

/**
 * A plain NATS connection (no JetStream) for a process that only follows the services' announcements: the gateway,
 * which holds no store and publishes no events. It reconnects forever, like `EventBus`; the promise resolves once
 * connected (it keeps trying until then).
 */
export async function connectForAnnouncements(options: {
  url: string;
  prefix: string;
  name: string;
}): Promise<AnnouncementHost & { close: () => Promise<void> }> {
  const connection = await connect(natsClientOptions(options.url, options.name));
  return {
    connection,
    subject: (name) => (options.prefix ? `${options.prefix}.${name}` : name),
    close: () => connection.close(),
  };
}

/** An event subject the cache listens to, with the keys each event changed (`undefined`: everything). */
export interface CacheEventSubject {
  /** Unprefixed, wildcards allowed (an event definition's `filter`). */
  subject: string;
  /** From the event's payload (parsed JSON); a throw, like `undefined`, forgets everything. */
  changes: (payload: unknown) => CacheKeys | undefined;
  /**
   * The change's name, when the write that made the event announced it under that name already (an operation's
   * `changeId`): the event then forgets nothing more. Without it, the event's subject and payload name it.
   */
  changeId?: (payload: unknown) => string | undefined;
}

interface Entry {
  /** The answer's bytes (off V8's heap, counted exactly against the byte budget). */
  body: Buffer;
  etag: string;
  /** What the entry costs the budget: its body, key and tag. */
  bytes: number;
  expiresAt: number;
  /**
   * Asked for since it was stored or last came up for eviction: it gets a second chance instead of going
   * (`store`). Marked, not moved, on each use, so a hit changes no Map: every move made V8 rebuild the shelf's
   * table now and then, and on a busy gateway each table lived long enough to be promoted, then was dropped.
   */
  used: boolean;
  /** What the answer depends on; `undefined`: everything (any change forgets it). */
  keys: CacheKeys | undefined;
  /** The gateway's: the service's answer headers, given again with the kept answer (`keep`, `recall`). */
  headers?: OutgoingHttpHeaders;
}

/** An answer the gateway kept, as `recall` gives it back. */
export interface KeptAnswer {
  body: Buffer;
  headers: OutgoingHttpHeaders;
}

export interface ResponseCacheOptions {
  /** Milliseconds clock (tests move it). */
  now?: () => number;
  /** Anonymous answers kept at most; the oldest go first. */
  maxEntries?: number;
  /**
   * Members' own answers kept at most, apart from the anonymous ones so that many members' lists never push the
   * public pages out; the oldest go first.
   */
  maxMemberEntries?: number;
  /**
   * Bytes of anonymous answers kept at most (bodies, keys and tags counted), the least recently used going first
   * (nearly: `Entry.used`): with the count bound, what bounds the memory anyone can fill with answers.
   */
  maxBytes?: number;
  /** An answer costing more than this (or than a budget) is served but not kept. */
  maxAnswerBytes?: number;
  /** The same for members' own answers, apart. */
  maxMemberBytes?: number;
  /** How often expired answers are dropped without being asked for again (a timer that keeps no process alive). */
  sweepEveryMs?: number;
  /** false: every route answers itself (the services' domain tests, which change data behind the API). */
  enabled?: boolean;
  /**
   * An answer depending on a key that changed less than this long ago is not kept (the gateway's: an instance of
   * the service that has not heard the change yet may still answer from its memory; see `keep`). 0 for the services.
   */
  settleMs?: number;
}

/** Defaults of the byte budgets: with the counts, they keep a service well under its manifest's memory (docs/benchmarks.md). */
export const RESPONSE_CACHE_MAX_BYTES = 32 * 1_048_576;
export const RESPONSE_CACHE_MAX_MEMBER_BYTES = 16 * 1_048_576;
export const RESPONSE_CACHE_MAX_ANSWER_BYTES = 2 * 1_048_576;
/** Bytes an entry costs beyond its body, key and tag (the entry object, its place in the maps). */
const ENTRY_OVERHEAD_BYTES = 256;

/** Keys whose last change is remembered (for answers being computed); beyond it the history starts anew. */
const CHANGE_HISTORY = 10_000;

/**
 * A key may name a part of what another names: `<whole>/<part>` (community's `board:12/loves`, the love count that
 * only a board's detail shows, beside `board:12/listed`, what its list items show). A change of the whole changes
 * every part (an answer depending on `board:12/listed` is forgotten by `board:12`), a change of a part changes the
 * whole (an answer depending on `board:12` is forgotten by `board:12/loves`), and parts of one whole are apart
 * (`board:12/loves` keeps an answer depending on `board:12/listed` only).
 */
export const KEY_PART_SEPARATOR = '/';

/** The wholes a key is a part of, widest first (`a/b/c`: `a`, `a/b`). */
function wholesOf(key: string): string[] {
  const wholes: string[] = [];
  for (let at = key.indexOf(KEY_PART_SEPARATOR); at > 0; at = key.indexOf(KEY_PART_SEPARATOR, at + 1)) wholes.push(key.slice(0, at));
  return wholes;
}

/** The index's and the history's name for "some part of `whole`" (a real key never ends with the separator). */
const partsOf = (whole: string): string => `${whole}${KEY_PART_SEPARATOR}`;

/** What a change of `key` reaches: the key itself, what depends on any part of it, and each whole it is part of. */
const reachedBy = (key: string): string[] => [key, partsOf(key), ...wholesOf(key)];

/** What an answer depending on `key` is changed by: the key itself, any part of it, and each whole it is part of. */
const changedBy = reachedBy;

/** Where an answer depending on `key` is indexed: under the key, and under "some part of" each whole it is part of. */
const indexedUnder = (key: string): string[] => [key, ...wholesOf(key).map(partsOf)];

/** The digest of a set of change ids, in any order (`heardDigest`). */
const digestOf = (ids: string[]): string => createHash('sha1').update(ids.sort().join(' ')).digest('base64url');
/** The digest of no change heard, the same in every process. */
const NOTHING_HEARD = digestOf([]);

/** Where a change of `key` is remembered: under the key, and as a change of "some part of" each whole it is part of. */
const rememberedUnder = indexedUnder;

/** How long a change's id is remembered to forget it once only (a write's own announcement comes back in milliseconds). */
const CHANGE_IDS_KEPT_MS = 5_000;

/** A change heard recently: its id, when, and the names it is remembered under (`rememberedUnder`). */
interface HeardChange {
  id: string;
  at: number;
  names: readonly string[];
}

/** The id an announcement carries (`CHANGE_ID_NATS_HEADER`), if any. */
const announcedId = (msg: Msg): string | undefined => msg.headers?.get(CHANGE_ID_NATS_HEADER) || undefined;

/**
 * One id for one event, whichever instance heard it: each announces it, and the repeats are heard as one change;
 * the write's own when the subject declares it (`CacheEventSubject.changeId`).
 */
function eventId(msg: Msg, event: CacheEventSubject): string {
  try {
    const declared = event.changeId?.(JSON.parse(msg.string()));
    if (declared) return declared;
  } catch {
    // named by its bytes below
  }
  return `e.${createHash('sha1').update(msg.subject).update(msg.data).digest('base64url')}`;
}

const weakEtag = (body: Buffer): string => `W/"${createHash('sha1').update(body).digest('base64url')}"`;

/** Keys from an announcement's payload; `undefined` (everything) for anything but `{"keys":[strings]}`. */
export function announcedKeys(msg: Msg): CacheKeys | undefined {
  if (msg.data.length === 0) return undefined;
  try {
    const keys = (JSON.parse(msg.string()) as { keys?: unknown } | null)?.keys;
    return Array.isArray(keys) && keys.every((key) => typeof key === 'string') ? keys : undefined;
  } catch {
    return undefined;
  }
}

const cacheAnswers = new Counter({
  name: 'binzip_response_cache_answers_total',
  help: 'Answers of cached routes that could be kept, by whether memory answered them or they were computed (in the gateway: memory or the service)',
  labelNames: ['answered_by'] as const,
  registers: [metricsRegistry],
});

/** Where a change the cache forgets came from: this process, another instance's announcement, an event, the connection. */
type ChangeSource = 'here' | 'announcement' | 'event' | 'connection';

const cacheChanges = new Counter({
  name: 'binzip_response_cache_changes_total',
  help: 'Changes the response cache forgot answers for, by source and by whether they named keys or meant everything',
  labelNames: ['source', 'what'] as const,
  registers: [metricsRegistry],
});

/** Keys an event changed, by its subject's declaration; `undefined` (everything) when they cannot be told. */
function eventKeys(msg: Msg, changes: CacheEventSubject['changes']): CacheKeys | undefined {
  try {
    return changes(JSON.parse(msg.string()));
  } catch {
    return undefined;
  }
}

/**
 * A short-lived, per-process store of GET answers, the way a busy site keeps its hottest pages:
 * the first anonymous request of a URL pays for the queries, the next ones within the route's TTL get the same
 * bytes. Rules:
 * - A public route keeps only the answers to requests without an `Authorization` header: an answer that may
 *   depend on the caller (`isScraped`, a member's own view) is never shared, and a member always sees his own
 *   write at once.
 * - A member route (`scope` 'member': a member's own lists, behind the operation's access guard) keeps each
 *   verified member's answers under his id, served to him alone (`Cache-Control: private`). They name the
 *   member's own keys (`inbox:<userId>`) besides what they show, so his writes, and what others do to his lists
 *   (a notification stored for him), forget exactly them.
 * - A write forgets only the answers it could have changed. An answer names the keys it depends on (the
 *   operation's `dependsOn`: every item it shows, and whatever decides which items it holds and in which order),
 *   a successful write the keys it changed (`changes`); the answers depending on one of them are forgotten (an
 *   index key -> answers, no scan), the others stay until their TTL. That is safe because a write's keys cover
 *   every answer that could show its change, whichever URL asked for it: a changed item is named by every answer
 *   showing it, and a change that can move items into or out of a page (an order, a filter, a count) either has
 *   a key of its own that such pages name (community's love order) or is not declared. A key may name a part of what another
 *   names (`<whole>/<part>`, `KEY_PART_SEPARATOR`): a change of a part changes its whole but not the other parts,
 *   so an answer showing only one part of a thing is not forgotten by a change of another part. Not declared is
 *   everything: a write without `changes` (or whose declaration fails) forgets every answer, an answer without
 *   `dependsOn` is forgotten by every change; `[]` is a write that changed nothing cached. What each service's
 *   writes forget, and why, is said where they are declared (community: routes/cache-keys.ts; houses: scraps
 *   change nothing cached; every other write forgets everything) and in docs/decisions-local.md.
 * - Every write this process answers successfully (below 400) forgets at once and is announced on core NATS
 *   (`cache.<service>.changed`, `{"keys":[...]}`), so the other instances forget the same answers; a write of `[]`
 *   is not announced, an announcement without keys forgets everything. The events the services publish
 *   (`CacheEventSubject`: community's comments forget their board) and the user projection, once it stored a
 *   snapshot (nicknames: everything), do the same for data that changes elsewhere.
 * - How long an answer lives is the route's (`CacheLifetime`, chosen by the service that owns it). Core NATS loses
 *   messages only around a broken connection, so when this process's connection drops (or the client reports a
 *   slow or stale one) everything is forgotten, answers live at most `UNHEARD_TTL_MS` until it is back, and
 *   everything is forgotten again when it is back (what was announced meanwhile never arrives). The lifetime bounds
 *   what the process cannot see (a partition between NATS servers, a change made outside the API).
 * - An answer that was being computed while one of its keys changed is not stored: each change gets a number, the
 *   last change of each key is remembered, and an answer is kept only if none of its keys changed after it began.
 * - Concurrent requests for an answer being computed wait for it: the store is asked once per page and TTL.
 * - Every answer of a cached route carries an `ETag`; Express answers a matching `If-None-Match` with 304.
 */
export class ResponseCache implements RouteCache {
  /** Anonymous answers by `<tag> <request key>`, in the order they were stored or given a second chance. */
  private readonly entries = new Map<string, Entry>();
  /** Members' answers by `member:<userId> <tag> <request key>`, in the same order. */
  private readonly memberEntries = new Map<string, Entry>();
  /** Bytes each shelf holds (`Entry.bytes` summed). */
  private readonly shelfBytes = new Map<Map<string, Entry>, number>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly sweepEveryMs: number;
  /** Called whenever everything is forgotten (`alsoForget`). */
  private readonly forgetEverythingToo: Array<() => void> = [];
  /** Dependency key -> the entries depending on it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Entries that declared no keys: every change forgets them. */
  private readonly undeclared = new Set<string>();
  private readonly computing = new Map<string, Promise<Entry | undefined>>();
  /** Number of the last change. */
  private changes = 0;
  /** The number of each key's last change since `historyStart` (a change of everything clears it). */
  private readonly changedAt = new Map<string, number>();
  /** Changes up to this one are not told apart by key: an answer begun before it is not stored. */
  private historyStart = 0;
  /** When each key last changed (`settleMs`), and when everything last did. */
  private readonly changedTime = new Map<string, number>();
  private everythingChangedAt = -Infinity;
  private readonly settleMs: number;
  /** This process's prefix of the change ids it gives (`newChangeId`). */
  private readonly instanceId = randomBytes(6).toString('base64url');
  private lastChangeId = 0;
  /** Changes heard in the last `CHANGE_IDS_KEPT_MS`, oldest first, and their ids. */
  private readonly heard: HeardChange[] = [];
  private readonly heardIds = new Set<string>();
  /** The change ids of the writes being answered (`writeChanged`). */
  private readonly writeIds = new WeakMap<Response, string>();
  /** What the operations declared for the answer or write a response is sending (`answerDependsOn`, `writeChanged`). */
  private readonly answerKeys = new WeakMap<Response, () => CacheKeys>();
  private readonly writeKeys = new WeakMap<Response, CacheKeys>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly maxMemberEntries: number;
  private readonly maxBytes: number;
  private readonly maxMemberBytes: number;
  private readonly maxAnswerBytes: number;
  readonly enabled: boolean;
  private subscriptions: Subscription[] = [];
  private connection: NatsConnection | undefined;
  private changedSubject: string | undefined;
  /** false while the announcements may not arrive (the NATS connection is down): answers live `UNHEARD_TTL_MS`. */
  private hearing = true;
  hits = 0;
  misses = 0;

  constructor(options: ResponseCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? 5_000;
    this.maxMemberEntries = options.maxMemberEntries ?? 5_000;
    this.maxBytes = options.maxBytes ?? RESPONSE_CACHE_MAX_BYTES;
    this.maxMemberBytes = options.maxMemberBytes ?? RESPONSE_CACHE_MAX_MEMBER_BYTES;
    this.maxAnswerBytes = options.maxAnswerBytes ?? RESPONSE_CACHE_MAX_ANSWER_BYTES;
    this.sweepEveryMs = options.sweepEveryMs ?? 5_000;
    this.enabled = options.enabled ?? true;
    this.settleMs = options.settleMs ?? 0;
  }

  /**
   * Middleware for one GET route: answers from memory when fresh, else lets the route answer and keeps it. A
   * 'member' route must come after the guard that verified the caller (`req.auth`). `keyOf` tells requests apart
   * (`mountOperations` gives the operation's declared input); without it, the URL as sent does.
   */
  route(tag: string, ttlMs: number, scope: CacheScope = 'public', keyOf: CacheKeyOf = (req) => req.originalUrl): RequestHandler {
    return (req, res, next) => {
      if (!this.enabled || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
      const member = scope === 'member' ? req.auth?.userId : undefined;
      const requestKey = keyOf(req);
      // What may be kept: a public route's anonymous answers, a member route's answers to a verified member; and
      // only for a request the route can tell (input that does not parse is answered, 400, and never kept).
      const keepable = (scope === 'member' ? member !== undefined : req.headers.authorization === undefined) && requestKey !== undefined;
      const shared = scope === 'public' && req.headers.authorization === undefined;
      const key = member === undefined ? `${tag} ${requestKey}` : `member:${member} ${tag} ${requestKey}`;
      const compute = (settle?: (entry: Entry | undefined) => void) => {
        this.misses++;
        if (keepable) cacheAnswers.inc({ answered_by: 'computed' });
        const began = this.changes;
        res.json = (body: unknown) => {
          const bytes = Buffer.from(JSON.stringify(body));
          const etag = weakEtag(bytes);
          let stored: Entry | undefined;
          if (res.statusCode === 200 && keepable) {
            const keys = this.declaredKeys(res);
            if (keys !== null && this.unchangedSince(began, keys)) {
              const lifetime = this.hearing ? ttlMs : Math.min(ttlMs, UNHEARD_TTL_MS);
              stored = {
                body: bytes,
                etag,
                bytes: bytes.length + 2 * (key.length + etag.length) + ENTRY_OVERHEAD_BYTES,
                used: false,
                expiresAt: this.now() + lifetime,
                keys,
              };
              this.store(key, stored);
            }
          }
          settle?.(stored);
          this.reply(res, etag, bytes, shared, stored, key);
          return res;
        };
        next();
      };
      if (!keepable) return compute();
      const shelf = this.shelfOf(key);
      const entry = shelf.get(key);
      if (entry && entry.expiresAt > this.now()) {
        this.hits++;
        cacheAnswers.inc({ answered_by: 'memory' });
        entry.used = true;
        this.reply(res, entry.etag, entry.body, shared, entry, key);
        return;
      }
      if (entry) this.remove(key);
      // Requests for an answer already being computed wait for it instead of asking the store again (a busy
      // page's expiry would otherwise send every concurrent request to the store at once).
      const pending = this.computing.get(key);
      if (pending) {
        void pending.then((computed) => {
          if (!computed) return compute();
          this.hits++;
          cacheAnswers.inc({ answered_by: 'memory' });
          this.reply(res, computed.etag, computed.body, shared, computed, key);
        });
        return;
      }
      let settle: (entry: Entry | undefined) => void = () => undefined;
      const computing = new Promise<Entry | undefined>((resolve) => (settle = resolve));
      this.computing.set(key, computing);
      const done = (computed: Entry | undefined) => {
        if (this.computing.get(key) === computing) this.computing.delete(key);
        settle(computed);
      };
      // An answer that never reaches res.json (a failure, a client gone) lets the waiting requests compute their own.
      res.on('close', () => done(undefined));
      compute(done);
    };
  }

  answerDependsOn(res: Response, keys: () => CacheKeys): void {
    this.answerKeys.set(res, keys);
  }

  writeChanged(res: Response, keys: CacheKeys, changeId?: string): void {
    this.writeKeys.set(res, keys);
    const id = changeId ?? this.newChangeId();
    this.writeIds.set(res, id);
    // Told to the gateway too, which forgets them before the writer reads his answer (`CACHE_CHANGED_HEADER`).
    if (!res.headersSent) {
      res.setHeader(CACHE_CHANGED_HEADER, changedAnnouncement(keys) ?? '');
      res.setHeader(CACHE_CHANGE_ID_HEADER, id);
    }
  }

  /** A new change id, unique to this process. */
  newChangeId(): string {
    return `${this.instanceId}.${++this.lastChangeId}`;
  }

  /**
   * A digest of the ids of the changes of `keys` (and of their parts and wholes) heard in the last
   * `CHANGES_HEARD_MS` (`CACHE_HEARD_HEADER`); `undefined` when everything changed meanwhile (or for no keys).
   */
  heardDigest(keys: CacheKeys | undefined): string | undefined {
    const now = this.now();
    const since = now - CHANGES_HEARD_MS;
    if (keys === undefined || this.everythingChangedAt > since) return undefined;
    // Most offered answers meet no recent change at all (every hit of a quiet page): no key names to build, no hash.
    const last = this.heard.length - 1;
    if (last < 0 || this.heard[last].at <= since) return NOTHING_HEARD;
    const names = new Set(keys.flatMap(changedBy));
    const ids: string[] = [];
    for (let i = last; i >= 0 && this.heard[i].at > since; i--) {
      const change = this.heard[i];
      if (change.names.some((name) => names.has(name))) ids.push(change.id);
    }
    return ids.length === 0 ? NOTHING_HEARD : digestOf(ids);
  }

  /** Remembers a change heard, and lets those older than `CHANGE_IDS_KEPT_MS` go. */
  private hear(change: HeardChange): void {
    this.heard.push(change);
    this.heardIds.add(change.id);
    let old = 0;
    while (old < this.heard.length && this.heard[old].at <= change.at - CHANGE_IDS_KEPT_MS) this.heardIds.delete(this.heard[old++].id);
    if (old > 0) this.heard.splice(0, old);
  }

  /** The number of the last change: what an answer asked for now gives `keep` as `began`. */
  get lastChange(): number {
    return this.changes;
  }

  /**
   * The gateway's side of the cache: the answer kept under `key` while it lives, counted as answered from memory;
   * `undefined`, counted as answered by the service, when there is none.
   */
  recall(key: string): KeptAnswer | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.now()) {
      this.hits++;
      cacheAnswers.inc({ answered_by: 'memory' });
      entry.used = true;
      return { body: entry.body, headers: entry.headers ?? {} };
    }
    if (entry) this.remove(key);
    this.misses++;
    cacheAnswers.inc({ answered_by: 'service' });
    return undefined;
  }

  /**
   * The gateway's side: keeps a service's answer that it offered (`CACHE_OFFER_HEADER`) under `key`, for the
   * offered lifetime (1 s at most while this process cannot hear the announcements) and under the offered keys,
   * unless one of them changed after change number `began` (when the request was sent on), or less than
   * `settleMs` ago: after a change this process heard, another instance of the service may not have heard it yet
   * and still answer from its memory. Whether it was kept.
   */
  keep(key: string, began: number, offer: CacheOffer, body: Buffer, headers: OutgoingHttpHeaders, heard?: string): boolean {
    if (!this.enabled || !this.unchangedSince(began, offer.keys)) return false;
    // Changed within the settle time: kept only if the service had heard the same recent changes (`heardDigest`).
    if (!this.settled(offer.keys) && (heard === undefined || heard !== this.heardDigest(offer.keys))) return false;
    const etag = typeof headers.etag === 'string' ? headers.etag : '';
    this.store(key, {
      body,
      etag,
      bytes: body.length + 2 * (key.length + etag.length) + ENTRY_OVERHEAD_BYTES,
      used: false,
      expiresAt: this.now() + (this.hearing ? offer.ttlMs : Math.min(offer.ttlMs, UNHEARD_TTL_MS)),
      keys: offer.keys,
      headers,
    });
    return this.entries.has(key);
  }

  /**
   * Forgets the answers that depend on any of `keys` (and those that declared none), or every answer without
   * `keys`, in this process only; answers being computed meanwhile are not stored. No keys (`[]`) is no change.
   */
  forget(keys?: CacheKeys, source: ChangeSource = 'here', id?: string): void {
    if (keys?.length === 0) return;
    // A change heard before (a write's own announcement coming back, the gateway hearing the announcement of a write
    // whose answer it forwarded, another instance's repeat of an event): forgotten then, and what was computed
    // since was computed after it.
    if (keys !== undefined && id !== undefined && this.heardIds.has(id)) return;
    cacheChanges.inc({ source, what: keys === undefined ? 'everything' : 'keys' });
    const change = ++this.changes;
    const now = this.now();
    if (keys !== undefined) this.hear({ id: id ?? this.newChangeId(), at: now, names: keys.flatMap(rememberedUnder) });
    if (keys === undefined) {
      this.everythingChangedAt = now;
      this.changedTime.clear();
      for (const forgetToo of this.forgetEverythingToo) forgetToo();
      this.entries.clear();
      this.memberEntries.clear();
      this.shelfBytes.clear();
      this.dependents.clear();
      this.undeclared.clear();
      // Every answer begun before now is refused anyway: the history of keys is not needed any more.
      this.changedAt.clear();
      this.historyStart = change;
      return;
    }
    for (const key of keys) {
      for (const name of rememberedUnder(key)) {
        this.changedAt.set(name, change);
        if (this.settleMs > 0) this.changedTime.set(name, now);
      }
      for (const name of reachedBy(key)) for (const entryKey of this.dependents.get(name) ?? []) this.remove(entryKey);
    }
    for (const entryKey of this.undeclared) this.remove(entryKey);
    if (this.changedAt.size > CHANGE_HISTORY) {
      this.changedAt.clear();
      this.historyStart = change;
      this.changedTime.clear();
      this.everythingChangedAt = now;
    }
  }

  /**
   * Mounted before the routes: a write (any method but GET/HEAD/OPTIONS) answered below 400 forgets what it
   * declared it changed (`writeChanged`; everything when it declared nothing) in this process and tells the other
   * instances (after `listen`).
   */
  forgetOnWrites(): RequestHandler {
    return (req, res, next) => {
      if (!this.enabled || req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
      res.on('finish', () => {
        if (res.statusCode < 400) this.changed(this.writeKeys.get(res), this.writeIds.get(res));
      });
      next();
    };
  }

  /**
   * Subscribes (core NATS, every instance its own subscription) to the service's write announcements (forgetting
   * the keys they name) and to the given event subjects (unprefixed, wildcards allowed): a plain subject forgets
   * every answer, a `CacheEventSubject` the keys its `changes` tells from the event.
   */
  listen(bus: AnnouncementHost, service: string, eventSubjects: readonly (string | CacheEventSubject)[]): void {
    this.connection = bus.connection;
    void this.followConnection(bus.connection);
    this.changedSubject = bus.subject(cacheChangedSubject(service));
    // A subscription error delivers no message to read: everything is forgotten.
    this.subscriptions.push(
      bus.connection.subscribe(this.changedSubject, {
        callback: (err, msg) => (err ? this.forget(undefined, 'announcement') : this.forget(announcedKeys(msg), 'announcement', announcedId(msg))),
      }),
    );
    for (const event of eventSubjects) {
      const callback =
        typeof event === 'string'
          ? () => this.eventChanged(undefined)
          : (err: Error | null, msg: Msg) => (err ? this.eventChanged(undefined) : this.eventChanged(eventKeys(msg, event.changes), eventId(msg, event)));
      this.subscriptions.push(bus.connection.subscribe(bus.subject(typeof event === 'string' ? event : event.subject), { callback }));
    }
  }

  /**
   * Whether the announcements can arrive: a connection that drops (or that the client reports slow or stale) may
   * have lost some, and those sent while it is down never arrive, so everything is forgotten when it drops and
   * again when it is back, and meanwhile answers live at most `UNHEARD_TTL_MS`.
   */
  connectionStatus(status: 'lost' | 'back'): void {
    this.hearing = status === 'back';
    this.forget(undefined, 'connection');
  }

  private async followConnection(connection: NatsConnection): Promise<void> {
    try {
      for await (const status of connection.status()) {
        if (this.connection !== connection) return;
        if (['disconnect', 'reconnecting', 'staleConnection', 'slowConsumer', 'close'].includes(status.type)) {
          if (this.hearing || status.type === 'slowConsumer') this.connectionStatus('lost');
        } else if (status.type === 'reconnect') this.connectionStatus('back');
      }
    } catch {
      // a closed connection ends its status stream
    }
  }

  /** Whether the announcements can arrive (`connectionStatus`). */
  get hearsChanges(): boolean {
    return this.hearing;
  }

  /**
   * Something else the answers are made from, forgotten in the same moment as everything here (the nickname
   * memory, which a user projection's announcement must clear before any answer is computed again).
   */
  alsoForget(forget: () => void): void {
    this.forgetEverythingToo.push(forget);
  }

  stop(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    this.connection = undefined;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Answers kept, anonymous and members' together. */
  get size(): number {
    return this.entries.size + this.memberEntries.size;
  }

  /** Bytes the kept answers cost the budgets, anonymous and members' together. */
  get bytes(): number {
    let total = 0;
    for (const bytes of this.shelfBytes.values()) total += bytes;
    return total;
  }

  /** Drops every expired answer (the sweep timer calls it; an answer is also dropped when asked for after expiry). */
  sweep(): void {
    const now = this.now();
    for (const shelf of [this.entries, this.memberEntries]) for (const [key, entry] of shelf) if (entry.expiresAt <= now) this.remove(key);
    if (this.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /**
   * A change: forgotten here and announced to the other instances; nothing at all for `[]`. The routes' writes
   * call it through `forgetOnWrites`; anything else that changes what answers show (an event consumer storing a
   * member's notification) calls it once the change is stored.
   */
  /**
   * An event heard changed `keys`: forgotten here and announced like a write's, so a gateway in front, which hears
   * the announcements and no event, forgets them too (each instance hears the event and announces it: the
   * repeats forget nothing more). What a process that wrote and then stopped before announcing leaves behind is
   * caught here too, when the relay publishes the write's event.
   */
  private eventChanged(keys: CacheKeys | undefined, id?: string): void {
    if (keys?.length === 0) return;
    this.forget(keys, 'event', id);
    this.announce(keys, id);
  }

  changed(keys: CacheKeys | undefined, id: string = this.newChangeId()): void {
    if (keys?.length === 0) return;
    this.forget(keys, 'here', id);
    this.announce(keys, id);
  }

  /** Tells the other instances and the gateways, with the change's id when it names keys. */
  private announce(keys: CacheKeys | undefined, id: string | undefined): void {
    if (!this.connection || !this.changedSubject) return;
    if (keys === undefined || id === undefined) return this.connection.publish(this.changedSubject, changedAnnouncement(keys));
    const headers = natsHeaders();
    headers.set(CHANGE_ID_NATS_HEADER, id);
    this.connection.publish(this.changedSubject, changedAnnouncement(keys), { headers });
  }

  /** The keys the route declared for the answer `res` sends (`undefined`: none declared; `null`: they failed). */
  private declaredKeys(res: Response): CacheKeys | undefined | null {
    const keys = this.answerKeys.get(res);
    if (!keys) return undefined;
    try {
      return keys();
    } catch {
      return null;
    }
  }

  /** Whether none of `keys` (any key, for `undefined`) changed less than `settleMs` ago. */
  private settled(keys: CacheKeys | undefined): boolean {
    if (this.settleMs === 0) return true;
    const since = this.now() - this.settleMs;
    if (this.everythingChangedAt > since) return false;
    if (keys === undefined) {
      for (const at of this.changedTime.values()) if (at > since) return false;
      return true;
    }
    return keys.every((key) => changedBy(key).every((name) => (this.changedTime.get(name) ?? -Infinity) <= since));
  }

  /** Whether none of `keys` (any key, for `undefined`) changed after change number `began`. */
  private unchangedSince(began: number, keys: CacheKeys | undefined): boolean {
    if (began < this.historyStart) return false;
    if (keys === undefined) return this.changes === began;
    return keys.every((key) => changedBy(key).every((name) => (this.changedAt.get(name) ?? 0) <= began));
  }

  /** The map that holds (or would hold) the answer under `key`. */
  private shelfOf(key: string): Map<string, Entry> {
    return key.startsWith('member:') ? this.memberEntries : this.entries;
  }

  private store(key: string, entry: Entry): void {
    this.remove(key);
    const shelf = this.shelfOf(key);
    const [maxEntries, maxBytes] = shelf === this.entries ? [this.maxEntries, this.maxBytes] : [this.maxMemberEntries, this.maxMemberBytes];
    if (entry.bytes > Math.min(maxBytes, this.maxAnswerBytes)) return;
    shelf.set(key, entry);
    this.shelfBytes.set(shelf, (this.shelfBytes.get(shelf) ?? 0) + entry.bytes);
    if (entry.keys === undefined) this.undeclared.add(key);
    else
      for (const dependency of entry.keys)
        for (const name of indexedUnder(dependency)) {
          let dependents = this.dependents.get(name);
          if (!dependents) this.dependents.set(name, (dependents = new Set()));
          dependents.add(key);
        }
    // The oldest answer not asked for since its last chance goes first (second chance: one asked for goes to the
    // back, unmarked), until both the count and the bytes fit.
    while (shelf.size > maxEntries || (this.shelfBytes.get(shelf) ?? 0) > maxBytes) {
      const oldest = shelf.entries().next().value;
      if (oldest === undefined) break;
      const [oldestKey, oldestEntry] = oldest;
      // Every other answer was asked for since its last chance (they all went behind this one): it is the newest
      // that stays, as with a strict least-recently-used order.
      if (oldestEntry.used || (oldestKey === key && shelf.size > 1)) {
        oldestEntry.used = false;
        shelf.delete(oldestKey);
        shelf.set(oldestKey, oldestEntry);
        continue;
      }
      this.remove(oldestKey);
    }
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), this.sweepEveryMs);
      this.sweeper.unref();
    }
  }

  /** Drops one entry and its place in the index. */
  private remove(key: string): void {
    const shelf = this.shelfOf(key);
    const entry = shelf.get(key);
    if (!entry) return;
    shelf.delete(key);
    this.shelfBytes.set(shelf, (this.shelfBytes.get(shelf) ?? 0) - entry.bytes);
    if (entry.keys === undefined) {
      this.undeclared.delete(key);
      return;
    }
    for (const dependency of entry.keys)
      for (const name of indexedUnder(dependency)) {
        const dependents = this.dependents.get(name);
        if (!dependents) continue;
        dependents.delete(key);
        if (dependents.size === 0) this.dependents.delete(name);
      }
  }

  /**
   * Express's `res.send` turns a matching `If-None-Match` into 304 (`req.fresh`). A shared answer that is kept
   * (`kept`) is offered to the gateway when every change of it is announced and this process hears them.
   */
  private reply(res: Response, etag: string, body: Buffer, shared: boolean, kept?: Entry, key?: string): void {
    if (shared && kept && this.connection && this.hearing) {
      const ttlMs = kept.expiresAt - this.now();
      if (ttlMs > 0) res.setHeader(CACHE_OFFER_HEADER, offerHeader({ ttlMs, keys: kept.keys }));
      // Only for an answer still held: one no change has forgotten, computed after every change heard of its keys.
      const heard = ttlMs > 0 && key !== undefined && this.entries.get(key) === kept ? this.heardDigest(kept.keys) : undefined;
      if (heard !== undefined) res.setHeader(CACHE_HEARD_HEADER, heard);
    }
    res.setHeader('ETag', etag);
    // Revalidate every time (the ETag makes that cheap); a member's answer stays in his own client.
    res.setHeader('Cache-Control', shared ? 'public, no-cache' : 'private, no-cache');
    // The same header Express gives a JSON text (a Buffer would get no charset).
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(body);
  }
}

/**
 * The consumers, each forgetting the keys it declares (`changes`) once its handler stored the change: here and,
 * announced, in the service's other instances. A redelivery forgets them again, so a crash between the write and
 * the announcement still forgets them. `runService` applies it to the declared consumers; tests may too.
 */
export function withCacheChanges(consumers: readonly EventConsumer[], cache: Pick<ResponseCache, 'changed'> | undefined): EventConsumer[] {
  if (!cache) return [...consumers];
  return consumers.map((consumer) => {
    const { changes } = consumer;
    if (!changes) return consumer;
    return {
      ...consumer,
      handle: async (data, meta) => {
        await consumer.handle(data, meta);
        cache.changed(changes(data));
      },
    };
  });
}
