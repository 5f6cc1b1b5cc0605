import { AppError, isAdmin, type AuthClaims } from '@binzip/shared';
import type { RecordDoc } from '../models';
import type { RecordsContext } from './context';

/** Not deleted and fully approved: what the public lists and hot show. */
export const APPROVED = { deletedAt: null, notApproved: 0 } as const;

/** A live record or C0001. */
export async function liveRecord(ctx: RecordsContext, recordId: number): Promise<RecordDoc> {
  const record = await ctx.models.records.findOne({ _id: recordId, deletedAt: null }).lean<RecordDoc>().exec();
  if (!record) throw AppError.notFound();
  return record;
}

/**
 * A record the caller may read: approved records are public; one still in review (or rejected) exists
 * only for administrators, the team that reviews it.
 */
export async function readableRecord(ctx: RecordsContext, recordId: number, caller: AuthClaims | undefined): Promise<RecordDoc> {
  const record = await liveRecord(ctx, recordId);
  if (record.notApproved !== 0 && !isAdmin(caller)) throw AppError.notFound();
  return record;
}
