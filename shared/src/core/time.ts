/**
 * Timestamps are rendered in Korea Standard Time (UTC+9, no daylight saving), the site's audience,
 * with an explicit offset so clients never guess.
 */
const KST_OFFSET_MINUTES = 9 * 60;

function shifted(date: Date): Date {
  return new Date(date.getTime() + KST_OFFSET_MINUTES * 60_000);
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `2024-03-05T14:03:11.042+09:00` */
export function toIsoOffset(date: Date): string {
  const d = shifted(date);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}+09:00`
  );
}

/** `03.05.2024` (the record areas' month.day.year) */
export function toMonthDayYear(date: Date): string {
  const d = shifted(date);
  return `${pad(d.getUTCMonth() + 1)}.${pad(d.getUTCDate())}.${d.getUTCFullYear()}`;
}
