import { Counter, metricsRegistry, type OperationSpec } from '@binzip/shared';
import type { Response } from 'express';

/**
 * Sign-in's former login field `email` (the contract renamed it `userName` on 2023-09-23; the original back
 * office still sends it). Accepted as the login id when `userName` is absent, announced on the answer as going
 * away (docs/versioning.md) and counted, so its last users can be seen before it is removed.
 */
export const EMAIL_ALIAS_DEPRECATED_SINCE = new Date('2026-11-27T00:00:00Z');
/** Six months after the announcement (docs/versioning.md's support period). */
export const EMAIL_ALIAS_SUNSET = new Date('2027-05-27T00:00:00Z');

const emailAliasSignIns = new Counter({
  name: 'binzip_sign_in_email_alias_total',
  help: 'Sign-ins that named the login id by the former field `email` instead of `userName` (removed at its Sunset)',
  registers: [metricsRegistry],
});

const ANNOUNCEMENT = {
  Deprecation: `@${Math.floor(EMAIL_ALIAS_DEPRECATED_SINCE.getTime() / 1000)}`,
  Sunset: EMAIL_ALIAS_SUNSET.toUTCString(),
};

/** Counts a sign-in that used `email` and tells the client, on its answer, that the name is going away. */
export function announceEmailAlias(res: Response): void {
  emailAliasSignIns.inc();
  res.set(ANNOUNCEMENT);
}

/** The document's word for the headers of a sign-in that used `email`. */
const EMAIL_ALIAS_HEADERS = {
  Deprecation: {
    description: `Only when the login id came as the former field \`email\`: \`${ANNOUNCEMENT.Deprecation}\` (RFC 9745)`,
    schema: { type: 'string' },
  },
  Sunset: {
    description: `Only when the login id came as \`email\`: \`${ANNOUNCEMENT.Sunset}\` (RFC 8594), when \`email\` stops being read`,
    schema: { type: 'string' },
  },
} as const;

/** Sign-in's answer headers: the refresh cookie's, and the alias's announcement. */
export const signInHeaders = (cookieHeaders: OperationSpec['successHeaders']): OperationSpec['successHeaders'] => ({
  ...(cookieHeaders as object),
  ...EMAIL_ALIAS_HEADERS,
});
