import type { RequestHandler } from 'express';
import { isAdmin } from './auth';
import { AppError } from './errors';

/** Answers whether a user is suspended now, from the service's own store (never a call to accounts). */
export type SuspensionLookup = (userId: number) => Promise<boolean>;

/** The methods that change something: what the suspension guard and the member-writes ceiling look at. */
export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses a suspended member's writes with 403 U0012, whatever the route. Access tokens live 30 minutes and
 * cannot be recalled, so the suspension is read from the store on each authenticated write: the user
 * projection in community, houses, records and notifications (fed by the snapshot event), the users
 * collection in accounts. Reads and anonymous requests pass untouched; administrators cannot be suspended.
 */
export function refuseSuspendedWrites(isSuspended: SuspensionLookup): RequestHandler {
  return async (req, _res, next) => {
    const claims = req.auth;
    if (claims && WRITE_METHODS.has(req.method) && !isAdmin(claims) && (await isSuspended(claims.userId))) throw new AppError('U0012');
    next();
  };
}
