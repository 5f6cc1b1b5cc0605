import type { RequestHandler } from 'express';
import { isAdmin } from './auth';
import { AppError } from './errors';

/** The statuses that refuse a member's writes. */
export type RefusedStatus = 'SUSPENDED' | 'WITHDRAWN';

/** Answers whether a user's status refuses writes now, from the service's own store (never a call to accounts). */
export type SuspensionLookup = (userId: number) => Promise<RefusedStatus | undefined>;

/** The methods that change something: what the suspension guard and the member-writes ceiling look at. */
export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses the writes of a suspended member with 403 U0012 and of a withdrawn account with 401 J0004 (its
 * access token belongs to an account that no longer exists), whatever the route. The status is read from the
 * store on each authenticated write: the user projection in every service but accounts (fed
 * by the snapshot event), the users collection in accounts. A withdrawal also revokes the account's sessions
 * (`sessions.revoked`); this guard covers tokens the announcement did not reach. Reads and anonymous requests
 * pass untouched; administrators cannot be suspended.
 */
export function refuseSuspendedWrites(statusOf: SuspensionLookup): RequestHandler {
  return async (req, _res, next) => {
    const claims = req.auth;
    if (claims && WRITE_METHODS.has(req.method) && !isAdmin(claims)) {
      const refused = await statusOf(claims.userId);
      if (refused === 'WITHDRAWN') throw new AppError('J0004');
      if (refused === 'SUSPENDED') throw new AppError('U0012');
    }
    next();
  };
}
