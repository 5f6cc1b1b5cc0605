import type http from 'node:http';
import {
  CACHE_CHANGE_ID_HEADER,
  CACHE_CHANGED_HEADER,
  CACHE_HEARD_HEADER,
  CACHE_OFFER_HEADER,
  CHANGES_HEARD_MS,
  readChanged,
  readOffer,
  readTextHeader,
} from '@binzip/shared/core';
import { ResponseCache, type AnnouncementHost } from '@binzip/shared/response-cache';
import { SERVICE_NAMES, type ServiceName } from './upstreams';

/**
 * How long after a change the gateway heard it keeps no answer depending on it: another instance of the service
 * may not have heard that change yet and still answer from its memory (an announcement arrives in milliseconds).
 */
export const ANSWERS_SETTLE_MS = CHANGES_HEARD_MS;

/** Headers of an upstream answer that belong to its one request, never given again with a kept answer. */
const REQUEST_OWN_HEADERS = ['date', 'x-request-id', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'];

/** Headers a 304 leaves out (what Express's `res.send` removes when the request is fresh). */
const NOT_IN_304 = ['content-type', 'content-length', 'transfer-encoding'];

const NO_CACHE = /(?:^|,)\s*?no-cache\s*?(?:,|$)/;

/**
 * Whether the client already holds the answer tagged `etag`: Express's `req.fresh` (the `fresh` package's rule)
 * for a request whose only condition is `If-None-Match`, so a kept answer is answered 304 exactly as the service
 * answers it.
 */
function clientHolds(req: http.IncomingMessage, etag: unknown): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (!noneMatch) return false;
  const cacheControl = req.headers['cache-control'];
  if (cacheControl && NO_CACHE.test(cacheControl)) return false;
  if (noneMatch === '*') return true;
  if (typeof etag !== 'string' || etag === '') return false;
  return noneMatch
    .split(',')
    .map((token) => token.trim())
    .some((match) => match === etag || match === `W/${etag}` || `W/${match}` === etag);
}

/** What the forwarder does with an upstream answer for the gateway's memory: keep its body once it has all of it. */
export interface AnswerReceipt {
  keep?: (body: Buffer) => void;
}

/**
 * The gateway's memory of the services' anonymous answers (issue 42: an answer from a service's memory still
 * crossed two HTTP hops, each with its whole middleware stack). Nothing is declared here: a service offers an
 * answer its own cache keeps (`CACHE_OFFER_HEADER`: lifetime and keys, from the operation's `cached` and
 * `dependsOn`), and the gateway keeps it in the same `ResponseCache` under the request's URL, one cache per service,
 * listening to the same announcements (`cache.<service>.changed`) with the same rules on a lost connection. An answer
 * depending on a key changed less than `ANSWERS_SETTLE_MS` ago is kept only when the service heard the same recent
 * changes of its keys as this gateway (`CACHE_HEARD_HEADER`, `ResponseCache.heardDigest`). A write
 * forwarded to a service forgets, before its answer goes on, what the answer says it changed
 * (`CACHE_CHANGED_HEADER`; everything of that service without it), so the writer's own next read, anonymous or not,
 * never sees an older answer here. Only anonymous GETs are answered from it or kept: no `Authorization`, no
 * cookie; an `If-None-Match` is answered 304 as the service answers it, and an `If-Modified-Since` or a `Range`
 * goes to the service. Answers that set a cookie or vary by a header are never kept.
 */
export class GatewayAnswers {
  private readonly caches = new Map<ServiceName, ResponseCache>();

  constructor(options: { maxBytes: number; now?: () => number }, host: AnnouncementHost) {
    for (const service of SERVICE_NAMES) {
      const cache = new ResponseCache({ maxBytes: options.maxBytes, settleMs: ANSWERS_SETTLE_MS, ...(options.now ? { now: options.now } : {}) });
      cache.listen(host, service, []);
      this.caches.set(service, cache);
    }
  }

  /** The memory's key of a request that may be answered from it, or `undefined`. */
  static keyOf(req: http.IncomingMessage): string | undefined {
    if (req.method !== 'GET') return undefined;
    const { headers } = req;
    if (headers.authorization !== undefined || headers.cookie !== undefined) return undefined;
    if (headers['if-modified-since'] !== undefined || headers.range !== undefined) return undefined;
    return req.url;
  }

  /** Answers `req` from memory when it may be and an answer lives; whether it did. */
  answer(service: ServiceName, req: http.IncomingMessage, res: http.ServerResponse): boolean {
    const key = GatewayAnswers.keyOf(req);
    if (key === undefined) return false;
    const kept = this.caches.get(service)?.recall(key);
    if (!kept) return false;
    if (clientHolds(req, kept.headers.etag)) {
      const headers = { ...kept.headers };
      for (const name of NOT_IN_304) delete headers[name];
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { ...kept.headers, 'content-length': kept.body.length });
    res.end(kept.body);
    return true;
  }

  /** What the request's answer will be compared with: the service's last change when it is sent on. */
  began(service: ServiceName): number {
    return this.caches.get(service)?.lastChange ?? 0;
  }

  /**
   * An upstream answer arrived (its internal headers already read and removed by `readInternalHeaders`): a
   * successful write forgets what it changed, an offered anonymous answer is to be kept once whole.
   */
  received(
    service: ServiceName,
    req: http.IncomingMessage,
    status: number,
    internal: InternalHeaders,
    headers: http.IncomingHttpHeaders,
    began: number,
  ): AnswerReceipt {
    const cache = this.caches.get(service);
    if (!cache) return {};
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      if (status < 400) cache.forget(readChanged(internal.changed), 'here', readTextHeader(internal.changeId));
      return {};
    }
    const key = GatewayAnswers.keyOf(req);
    const offer = status === 200 && key !== undefined ? readOffer(internal.offer) : undefined;
    if (key === undefined || offer === undefined || headers['set-cookie'] !== undefined || headers.vary !== undefined) return {};
    const kept: http.OutgoingHttpHeaders = { ...headers };
    for (const name of REQUEST_OWN_HEADERS) delete kept[name];
    const heard = readTextHeader(internal.heard);
    return { keep: (body) => void cache.keep(key, began, offer, body, kept, heard) };
  }

  stop(): void {
    for (const cache of this.caches.values()) cache.stop();
  }
}

/** The internal headers of an upstream answer (`CACHE_OFFER_HEADER`, `CACHE_CHANGED_HEADER`). */
export interface InternalHeaders {
  offer: string | string[] | undefined;
  changed: string | string[] | undefined;
  changeId: string | string[] | undefined;
  heard: string | string[] | undefined;
}

/** Reads the internal headers and removes them: the client never sees them, with the gateway's memory or without. */
export function readInternalHeaders(headers: http.IncomingHttpHeaders): InternalHeaders {
  const internal = {
    offer: headers[CACHE_OFFER_HEADER],
    changed: headers[CACHE_CHANGED_HEADER],
    changeId: headers[CACHE_CHANGE_ID_HEADER],
    heard: headers[CACHE_HEARD_HEADER],
  };
  for (const name of [CACHE_OFFER_HEADER, CACHE_CHANGED_HEADER, CACHE_CHANGE_ID_HEADER, CACHE_HEARD_HEADER]) delete headers[name];
  return internal;
}
