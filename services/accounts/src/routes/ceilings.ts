import { Ceiling, ceilingGuard, clientAddressOf, type CeilingSettings } from '@binzip/shared';
import type { RequestHandler } from 'express';
import type { Connection } from 'mongoose';

/**
 * Per-client-address ceilings on what an anonymous script would repeat, by the name an operation gives in
 * `ceiling`: `sign-ups` (member and agent sign-ups together) and `code-sends` (SMS and e-mail codes together,
 * whatever number or address they go to).
 */
export type AddressCeilings = Record<'sign-ups' | 'code-sends', RequestHandler>;

const uncounted: RequestHandler = (_req, _res, next) => next();

/** Counted in accounts' database, so every accounts instance counts one address against the same number. */
export function addressCeilings(connection: Connection, settings: CeilingSettings | undefined): AddressCeilings {
  if (!settings) return { 'sign-ups': uncounted, 'code-sends': uncounted };
  const perAddress = (name: string, limit: number, windowSeconds: number) =>
    ceilingGuard(new Ceiling(connection, { name, limit, windowSeconds }), clientAddressOf);
  return {
    'sign-ups': perAddress('sign-ups', settings.CEILING_SIGN_UPS_PER_ADDRESS, settings.CEILING_SIGN_UPS_WINDOW_SECONDS),
    'code-sends': perAddress('code-sends', settings.CEILING_CODE_SENDS_PER_ADDRESS, settings.CEILING_CODE_SENDS_WINDOW_SECONDS),
  };
}
