import { nickNameIn, nickNamesOf, toMonthDayYear } from '@binzip/shared';
import type { RecordDoc } from '../models';
import { LIMITS, type Part } from './vocabulary';
import type { RecordsContext } from './context';

/** Nicknames of `ids` from the user projection, as a lookup that falls back to the unknown-user name. */
export async function nickNames(ctx: RecordsContext, ids: Iterable<number>): Promise<(id: number) => string> {
  const names = await nickNamesOf(ctx.models.users, ids);
  return (id) => nickNameIn(names, id);
}

/** The list excerpt: the first characters of the text, counted in code points so no emoji is cut in half. */
export function excerpt(text: string, length: number = LIMITS.listExcerpt): string {
  return Array.from(text).slice(0, length).join('');
}

export interface RecordListItem {
  record_id: number;
  title: string;
  content: string;
  nick_name: string;
  create_at: string;
  part: Part;
}

export async function renderListItems(ctx: RecordsContext, records: RecordDoc[]): Promise<RecordListItem[]> {
  const nick = await nickNames(
    ctx,
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
