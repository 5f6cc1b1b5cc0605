import {
  AppError,
  auditEvent,
  buildPage,
  escapeRegex,
  pageWindow,
  toIsoOffset,
  type AuthClaims,
  type Authority,
  type PageObject,
  type PageRequest,
  type SortOrder,
  type UserStatus,
  type UserType,
} from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import { changeUser } from './user-changes';

/** The administrators' use-cases on members (backoffice.md "Members"); withdrawals are in withdrawals.ts. */

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
  /** Newest first unless asked otherwise; `reportCount` sorts by the reports against the member's listings (issue 40). */
  sort?: SortOrder<'createdAt' | 'reportCount'>;
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

function userOrder(sort: AdminUserQuery['sort']): Record<string, 1 | -1> {
  const { field, direction } = sort ?? { field: 'createdAt', direction: -1 };
  // Ties (most members have no report) follow the join date in the same direction: one index walk serves it.
  return field === 'reportCount' ? { reportCount: direction, createdAt: direction, _id: direction } : { createdAt: direction, _id: direction };
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
    ctx.models.users.find(filter, { pendingEvents: 0, passwordHash: 0 }).sort(userOrder(query.sort)).skip(skip).limit(limit).lean<UserDoc[]>().exec(),
    // Without a filter the collection's own count answers; a filtered count reads the matching index range.
    Object.keys(filter).length === 0 ? ctx.models.users.estimatedDocumentCount().exec() : ctx.models.users.countDocuments(filter).exec(),
  ]);
  return buildPage(users.map(adminUserItem), query, total);
}

/**
 * Every refresh token of the user stops working at once (reissue: 401). A suspension revokes the refresh tokens but does not announce the sessions: the member's access tokens keep
 * reaching the services, whose write guard answers 403 U0012 (이용이 정지된 계정입니다) so the client can say why,
 * where a revoked session would only get 401.
 */
async function revokeRefreshTokens(ctx: AccountsContext, userId: number): Promise<void> {
  await ctx.models.refreshTokens.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: ctx.now() } }).exec();
}

/** Suspends a member; suspending again keeps the first time and replaces the reason. */
export async function suspendUser(ctx: AccountsContext, admin: AuthClaims, input: { id: number; reason: string }): Promise<number> {
  const { id: userId, reason } = input;
  await changeUser(
    ctx,
    'suspension',
    userId,
    (user) => {
      if (user.authority === 'ADMIN') throw AppError.forbidden();
      const suspendedAt = user.suspension?.suspendedAt ?? ctx.now();
      if (user.status === 'SUSPENDED' && user.suspension?.reason === reason) return undefined;
      return { status: 'SUSPENDED', suspension: { reason, suspendedAt } };
    },
    () => auditEvent('accounts', admin, { action: 'SUSPEND', targetType: 'USER', targetId: userId, memberId: userId, reason }, ctx.now()),
  );
  await revokeRefreshTokens(ctx, userId);
  return userId;
}

/** Lifts a suspension: the member is back where they were (a pending withdrawal request stays pending). Idempotent. */
export async function liftSuspension(ctx: AccountsContext, admin: AuthClaims, input: { id: number }): Promise<number> {
  const userId = input.id;
  await changeUser(
    ctx,
    'suspensionLift',
    userId,
    (user) => {
      if (user.status !== 'SUSPENDED') return undefined;
      return { status: user.withdrawal ? 'WITHDRAWAL_REQUESTED' : 'ACTIVE', suspension: null };
    },
    () => auditEvent('accounts', admin, { action: 'LIFT_SUSPENSION', targetType: 'USER', targetId: userId, memberId: userId }, ctx.now()),
  );
  return userId;
}
