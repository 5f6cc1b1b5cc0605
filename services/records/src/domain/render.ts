import { UNKNOWN_NICKNAME, nickNamesOf, toMonthDayYear } from '@binzip/shared';
import type { RecordsModels } from '../models';
import type { RecordDoc } from '../models';
import { LIMITS, type ReviewerStatus } from './catalog';

export async function nickNames(models: RecordsModels, ids: Iterable<number>): Promise<(id: number) => string> {
  const names = await nickNamesOf(models.users, ids);
  return (id) => names.get(id) ?? UNKNOWN_NICKNAME;
}

/** The list excerpt: the first characters of the text, counted in code points so no emoji is cut in half. */
export function excerpt(text: string, length: number = LIMITS.listExcerpt): string {
  return Array.from(text).slice(0, length).join('');
}

export function recordStatus(record: Pick<RecordDoc, 'notApproved' | 'rejected'>): ReviewerStatus {
  if (record.rejected > 0) return 'reject';
  if (record.notApproved === 0) return 'approve';
  return 'wait';
}

export interface RecordListItem {
  record_id: number;
  title: string;
  content: string;
  nick_name: string;
  create_at: string;
  part: string;
}

export async function renderListItems(models: RecordsModels, records: RecordDoc[]): Promise<RecordListItem[]> {
  const nick = await nickNames(
    models,
    records.map((r) => r.authorId),
  );
  return records.map((r) => ({
    record_id: r._id,
    title: r.title,
    content: excerpt(r.content),
    nick_name: nick(r.authorId),
    create_at: toMonthDayYear(r.createdAt),
    part: r.part,
  }));
}
