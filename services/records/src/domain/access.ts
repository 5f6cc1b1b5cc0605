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
 * A record the caller may comment on: approved records take anyone's comments; one still in review (or
 * rejected) only the administrators' (the team that reviews it). Reading by id is `liveRecord`: the contract
 * lists the detail as a public read, and the back office opens its author's new record right after
 * submitting it, without a token; lists and hot still show approved records only.
 */
export async function commentableRecord(ctx: RecordsContext, recordId: number, caller: AuthClaims | undefined): Promise<RecordDoc> {
  const record = await liveRecord(ctx, recordId);
  if (record.notApproved !== 0 && !isAdmin(caller)) throw AppError.notFound();
  return record;
}
