import type { RequestHandler } from 'express';

export interface DeprecationNotice {
  /** When the route became deprecated (announced from then on). */
  since: Date;
  /** When it stops answering; at least the support period of docs/versioning.md after `since`. */
  sunset: Date;
  /** The route that replaces it, e.g. `/api/v2/houses`. */
  successor?: string;
}

/**
 * Announces on every answer of a deprecated route that it is going away (docs/versioning.md):
 * `Deprecation: @<unix seconds>` (RFC 9745), `Sunset: <HTTP date>` (RFC 8594) and, when there is one,
 * `Link: <successor>; rel="successor-version"`. Mount it before the route's handler; the API document marks
 * the operation `deprecated` (`OperationSpec.deprecated`).
 */
export function announceDeprecation(notice: DeprecationNotice): RequestHandler {
  if (notice.sunset.getTime() <= notice.since.getTime()) throw new Error('a sunset must come after the deprecation');
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(notice.since.getTime() / 1000)}`,
    Sunset: notice.sunset.toUTCString(),
  };
  if (notice.successor) headers.Link = `<${notice.successor}>; rel="successor-version"`;
  return (_req, res, next) => {
    res.set(headers);
    next();
  };
}
