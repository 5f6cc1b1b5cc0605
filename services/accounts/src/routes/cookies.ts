import type { OperationSpec } from '@binzip/shared';
import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { REFRESH_TTL_SECONDS } from '../domain/sessions';

export const REFRESH_COOKIE = 'RefreshToken';

/**
 * The spec fixes the attributes and their order: `Path=/; Max-Age=604800; Secure; HttpOnly; SameSite=None`.
 * `serialize` encodes and validates the name=value pair; the attributes are written in the spec's order
 * (and no `Expires`, which serialize would only add for an `expires` option).
 */
function refreshCookie(value: string, maxAgeSeconds: number): string {
  return `${serialize(REFRESH_COOKIE, value)}; Path=/; Max-Age=${maxAgeSeconds}; Secure; HttpOnly; SameSite=None`;
}

export function setRefreshCookie(res: Response, token: string): void {
  res.append('Set-Cookie', refreshCookie(token, REFRESH_TTL_SECONDS));
}

export function clearRefreshCookie(res: Response): void {
  res.append('Set-Cookie', refreshCookie('', 0));
}

export function readRefreshCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const value = parse(header)[REFRESH_COOKIE];
  return value && value.length <= 512 ? value : undefined;
}

/** The document's word for what `setRefreshCookie` sends. */
export const SETS_REFRESH_COOKIE: OperationSpec['successHeaders'] = {
  'Set-Cookie': {
    description: '`RefreshToken=<opaque>; Path=/; Max-Age=604800; Secure; HttpOnly; SameSite=None` (the new refresh token)',
    schema: { type: 'string' },
  },
};

/** The document's word for what `clearRefreshCookie` sends. */
export const CLEARS_REFRESH_COOKIE: OperationSpec['successHeaders'] = {
  'Set-Cookie': { description: '`RefreshToken=; ... Max-Age=0` (cleared)', schema: { type: 'string' } },
};
