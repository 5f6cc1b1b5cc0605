import {
  AppError,
  buildPage,
  CONFLICT,
  escapeRegex,
  pageWindow,
  retryOnConflict,
  toIsoOffset,
  type Authority,
  type PageObject,
  type PageRequest,
  type UserStatus,
  type UserType,
} from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import { userSnapshotEvent } from '../events/user-snapshot';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import { WITHDRAWAL_REASONS, type WithdrawalReason } from './rules';
import { endSessions } from './sessions';
import { findUser } from './user-lookup';

/** The administrators' use-cases on members (backoffice.md "Members" and "Withdrawals"). */

export interface AdminUserItem {
  id: number;
  userName: string;
  nickName: string;
  email: string;
  phoneNum: string;
  userType: UserType;
  authority: Authority;
  status: UserStatus;
  createdAt: string;
  suspenseReason: string | null;
  reportedAt: string | null;
  reportCount: number;
}

export interface AdminUserQuery extends PageRequest {
  search?: string;
  userType?: UserType;
  status?: UserStatus;
}

export function adminUserItem(user: UserDoc): AdminUserItem {
  return {
    id: user._id,
    userName: user.userName,
    nickName: user.nickName,
    email: user.email,
    phoneNum: user.phoneNum,
    userType: user.userType,
    authority: user.authority,
    status: user.status,
    createdAt: toIsoOffset(user.createdAt),
    suspenseReason: user.suspension?.reason ?? null,
    reportedAt: user.reportedAt ? toIsoOffset(user.reportedAt) : null,
    reportCount: user.reportCount ?? 0,
  };
}

export async function listUsers(ctx: AccountsContext, query: AdminUserQuery): Promise<PageObject<AdminUserItem>> {
  const filter: FilterQuery<UserDoc> = {};
  if (query.status) filter.status = query.status;
  if (query.userType) filter.userType = query.userType;
  if (query.search) {
    const pattern = new RegExp(escapeRegex(query.search), 'i');
    filter.$or = [{ userName: pattern }, { nickName: pattern }, { email: pattern }, { phoneNum: pattern }];
  }
  const { skip, limit } = pageWindow(query);
  const [users, total] = await Promise.all([
    ctx.models.users.find(filter, { pendingEvents: 0, passwordHash: 0 }).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(limit).lean<UserDoc[]>().exec(),
    // Without a filter the collection's own count answers; a filtered count reads the matching index range.
    Object.keys(filter).length === 0 ? ctx.models.users.estimatedDocumentCount().exec() : ctx.models.users.countDocuments(filter).exec(),
  ]);
  return buildPage(users.map(adminUserItem), query, total);
}

type AdminChange = Partial<Pick<UserDoc, 'userName' | 'nickName' | 'passwordHash' | 'phoneNum' | 'email' | 'status' | 'withdrawal' | 'suspension' | 'agent'>>;

const MAX_CHANGE_ATTEMPTS = 32;

/**
 * Applies an administrator's change computed from the current document, with the same compare-and-set as the
 * members' own changes (version and password hash): a change of the published snapshot (status, names) goes
 * out with a new version and its event in one document update.
 */
async function changeAsAdmin(
  ctx: AccountsContext,
  userId: number,
  compute: (user: UserDoc) => AdminChange | undefined,
  options: { dropOlderEvents?: boolean } = {},
): Promise<void> {
  await retryOnConflict(
    async () => {
      const user = await findUser(ctx, userId);
      const change = compute(user);
      if (!change) return;
      const now = ctx.now();
      const next = { ...user, ...change };
      const snapshotChanges = next.status !== user.status || next.nickName !== user.nickName || next.userName !== user.userName;
      const event = userSnapshotEvent({ ...next, version: user.version + 1 }, now);
      const update = !snapshotChanges
        ? { $set: { ...change, updatedAt: now } }
        : options.dropOlderEvents
          ? // Snapshots are latest-wins, so unsent older ones (holding the erased data) can go.
            { $set: { ...change, version: user.version + 1, updatedAt: now, pendingEvents: [event] } }
          : { $set: { ...change, version: user.version + 1, updatedAt: now }, $push: { pendingEvents: event } };
      const result = await ctx.models.users.updateOne({ _id: userId, version: user.version, passwordHash: user.passwordHash }, update).exec();
      if (result.matchedCount !== 1) return CONFLICT;
      if (snapshotChanges) ctx.eventsPending();
    },
    { attempts: MAX_CHANGE_ATTEMPTS },
  );
}

/** Every refresh token of the user stops working at once (reissue: 401). */
/**
 * A suspension revokes the refresh tokens but does not announce the sessions: the member's access tokens keep
 * reaching the services, whose write guard answers 403 U0012 (이용이 정지된 계정입니다) so the client can say why,
 * where a revoked session would only get 401.
 */
async function revokeRefreshTokens(ctx: AccountsContext, userId: number): Promise<void> {
  await ctx.models.refreshTokens.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: ctx.now() } }).exec();
}

/** Suspends a member; suspending again keeps the first time and replaces the reason. */
export async function suspendUser(ctx: AccountsContext, input: { id: number; reason: string }): Promise<number> {
  const { id: userId, reason } = input;
  await changeAsAdmin(ctx, userId, (user) => {
    if (user.authority === 'ADMIN') throw AppError.forbidden();
    if (user.status === 'WITHDRAWN') throw AppError.notFound();
    const suspendedAt = user.suspension?.suspendedAt ?? ctx.now();
    if (user.status === 'SUSPENDED' && user.suspension?.reason === reason) return undefined;
    return { status: 'SUSPENDED', suspension: { reason, suspendedAt } };
  });
  await revokeRefreshTokens(ctx, userId);
  return userId;
}

/** Lifts a suspension: the member is back where they were (a pending withdrawal request stays pending). Idempotent. */
export async function liftSuspension(ctx: AccountsContext, input: { id: number }): Promise<number> {
  const userId = input.id;
  await changeAsAdmin(ctx, userId, (user) => {
    if (user.status === 'WITHDRAWN') throw AppError.notFound();
    if (user.status !== 'SUSPENDED') return undefined;
    return { status: user.withdrawal ? 'WITHDRAWAL_REQUESTED' : 'ACTIVE', suspension: null };
  });
  return userId;
}

/** A request is open from the member's request until an administrator completes it (also while suspended). */
const OPEN_WITHDRAWAL: FilterQuery<UserDoc> = { withdrawal: { $ne: null }, status: { $in: ['WITHDRAWAL_REQUESTED', 'SUSPENDED'] } };

const REASON_TEXTS = Object.fromEntries(Object.entries(WITHDRAWAL_REASONS).map(([text, code]) => [code, text])) as Record<WithdrawalReason, string>;

export interface WithdrawalItem {
  userId: number;
  userName: string;
  nickName: string;
  userType: UserType;
  reasons: string[];
  content: string;
  requestedAt: string;
}

export async function listWithdrawals(ctx: AccountsContext, request: PageRequest): Promise<PageObject<WithdrawalItem>> {
  const { skip, limit } = pageWindow(request);
  const [users, total] = await Promise.all([
    ctx.models.users
      .find(OPEN_WITHDRAWAL, { pendingEvents: 0, passwordHash: 0 })
      .sort({ 'withdrawal.requestedAt': 1, _id: 1 })
      .skip(skip)
      .limit(limit)
      .lean<UserDoc[]>()
      .exec(),
    ctx.models.users.countDocuments(OPEN_WITHDRAWAL).exec(),
  ]);
  const items = users.map((user) => ({
    userId: user._id,
    userName: user.userName,
    nickName: user.nickName,
    userType: user.userType,
    reasons: (user.withdrawal?.reasons ?? []).map((code) => REASON_TEXTS[code] ?? code),
    content: user.withdrawal?.content ?? '',
    requestedAt: toIsoOffset(user.withdrawal?.requestedAt ?? user.updatedAt),
  }));
  return buildPage(items, request, total);
}

/**
 * The values that replace erased personal data. The unique indexes need a distinct value per account, and
 * `withdrawn:<id>` matches none of the sign-up formats (userName, nickname, phone, e-mail), so it never
 * blocks a new sign-up and no one can sign up with it. The password hash becomes one bcrypt never matches.
 */
const erased = (userId: number): string => `withdrawn:${userId}`;
export const ERASED_PASSWORD_HASH = '!';

export async function completeWithdrawal(ctx: AccountsContext, input: { userId: number }): Promise<number> {
  const { userId } = input;
  await changeAsAdmin(
    ctx,
    userId,
    (user) => {
      if (!user.withdrawal || (user.status !== 'WITHDRAWAL_REQUESTED' && user.status !== 'SUSPENDED')) throw AppError.notFound();
      const placeholder = erased(userId);
      return {
        status: 'WITHDRAWN',
        userName: placeholder,
        nickName: placeholder,
        phoneNum: placeholder,
        email: placeholder,
        passwordHash: ERASED_PASSWORD_HASH,
        agent: null,
        suspension: null,
      };
    },
    { dropOlderEvents: true },
  );
  await endSessions(ctx, userId);
  return userId;
}
