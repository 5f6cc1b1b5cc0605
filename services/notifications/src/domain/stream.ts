import { randomBytes } from 'node:crypto';
import { AppError, type AuthClaims } from '@binzip/shared';
import type { StreamTicketDoc } from '../models';
import type { NotificationsContext } from './context';

/** How long a stream ticket may wait to be used (issue 38). */
export const TICKET_TTL_MS = 30_000;

/** When the access token in an `Authorization` header expires (its `exp`; the header is verified already). */
export function tokenExpiry(authorization: string | undefined): Date {
  const payload = (authorization ?? '').replace(/^Bearer\s+/, '').split('.')[1] ?? '';
  const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8') || '{}') as { exp?: number }).exp;
  if (typeof exp !== 'number') throw new AppError('J0004');
  return new Date(exp * 1000);
}

/** A single-use ticket valid 30 s, carrying the caller and when his token expires. */
export async function issueTicket(ctx: NotificationsContext, caller: AuthClaims, tokenExpiresAt: Date): Promise<{ ticket: string }> {
  const now = ctx.now();
  const ticket = randomBytes(24).toString('base64url');
  await ctx.models.streamTickets.create({ _id: ticket, claims: caller, tokenExpiresAt, expiresAt: new Date(now.getTime() + TICKET_TTL_MS) });
  // Tickets nobody used are swept here, a few at a time, rather than by a job.
  await ctx.models.streamTickets.deleteMany({ expiresAt: { $lt: now } }).exec();
  return { ticket };
}

/** Takes a ticket (it cannot be taken twice, by any replica): unknown, used or expired is J0004. */
export async function takeTicket(ctx: NotificationsContext, ticket: string): Promise<Pick<StreamTicketDoc, 'claims' | 'tokenExpiresAt'>> {
  if (!/^[A-Za-z0-9_-]{32}$/.test(ticket)) throw new AppError('J0004');
  const doc = await ctx.models.streamTickets.findOneAndDelete({ _id: ticket }).lean<StreamTicketDoc>().exec();
  if (!doc || doc.expiresAt.getTime() <= ctx.now().getTime()) throw new AppError('J0004');
  return { claims: doc.claims, tokenExpiresAt: new Date(doc.tokenExpiresAt) };
}
