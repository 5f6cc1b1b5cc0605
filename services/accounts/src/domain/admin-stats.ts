import { UserStatuses, UserTypes, type UserType } from '@binzip/shared';
import type { AccountsContext } from './context';
import { AGE_CODES, JOIN_PATH_CODES, type AgeCode, type JoinPathCode } from './rules';

/** Korea has no daylight saving: a Seoul day is a fixed 9-hour shift of UTC. */
const SEOUL_OFFSET_MS = 9 * 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
export const SIGN_UP_DAYS = 30;

const seoulDate = (date: Date): string => new Date(date.getTime() + SEOUL_OFFSET_MS).toISOString().slice(0, 10);

/** The start (as a UTC instant) of the Seoul day `date` falls in. */
const seoulDayStart = (date: Date): Date => new Date(Math.floor((date.getTime() + SEOUL_OFFSET_MS) / DAY_MS) * DAY_MS - SEOUL_OFFSET_MS);

export interface UserStats {
  total: number;
  byUserType: Record<UserType, number>;
  byAge: Record<AgeCode, number>;
  byJoinPath: Array<{ joinPath: JoinPathCode; count: number }>;
  signUpsByDay: Array<{ date: string; count: number }>;
}

/** Counts over accounts that are not withdrawn; plain counts per value (no aggregation stages: docs/dev-mongo.md). */
export async function userStats(ctx: AccountsContext): Promise<UserStats> {
  const users = ctx.models.users;
  // Named statuses rather than `$ne: 'WITHDRAWN'`, so the counts are bounded by the status index.
  const counted = { status: { $in: UserStatuses.filter((status) => status !== 'WITHDRAWN') } };
  const count = (filter: Record<string, unknown>) => users.countDocuments({ ...counted, ...filter }).exec();
  const ageCodes = Object.values(AGE_CODES);
  const joinPaths = Object.values(JOIN_PATH_CODES);
  const firstDay = new Date(seoulDayStart(ctx.now()).getTime() - (SIGN_UP_DAYS - 1) * DAY_MS);
  const [total, typeCounts, ageCounts, pathCounts, recent] = await Promise.all([
    count({}),
    Promise.all(UserTypes.map((userType) => count({ userType }))),
    Promise.all(ageCodes.map((age) => count({ age }))),
    Promise.all(joinPaths.map((joinPath) => count({ joinPaths: joinPath }))),
    users
      .find({ ...counted, createdAt: { $gte: firstDay } }, { createdAt: 1 })
      .lean()
      .exec(),
  ]);
  const days = new Map<string, number>();
  for (let i = 0; i < SIGN_UP_DAYS; i++) days.set(seoulDate(new Date(firstDay.getTime() + i * DAY_MS)), 0);
  for (const user of recent) {
    const day = seoulDate(user.createdAt);
    if (days.has(day)) days.set(day, (days.get(day) ?? 0) + 1);
  }
  return {
    total,
    byUserType: Object.fromEntries(UserTypes.map((type, i) => [type, typeCounts[i] ?? 0])) as Record<UserType, number>,
    byAge: Object.fromEntries(ageCodes.map((age, i) => [age, ageCounts[i] ?? 0])) as Record<AgeCode, number>,
    byJoinPath: joinPaths.map((joinPath, i) => ({ joinPath, count: pathCounts[i] ?? 0 })),
    signUpsByDay: [...days].map(([date, n]) => ({ date, count: n })),
  };
}
