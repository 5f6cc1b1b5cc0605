import {
  AppError,
  auditEvent,
  buildPage,
  escapeRegex,
  pageWindow,
  toIsoOffset,
  type AuthClaims,
  type PageObject,
  type PageRequest,
  type SortOrder,
  type UserType,
} from '@binzip/shared';
import type { FilterQuery } from 'mongoose';
import type { UserDoc } from '../models';
import type { AccountsContext } from './context';
import { WITHDRAWAL_REASONS, type WithdrawalReason } from './rules';
import { endSessions } from './sessions';
import { changeUser } from './user-changes';

/** A member asks to leave (POST /api/v1/users/withdrawal); an administrator completes it (backoffice.md "Withdrawals"). */

export interface WithdrawalRequest {
  reason: WithdrawalReason[];
  content: string;
}

export async function requestWithdrawal(ctx: AccountsContext, caller: AuthClaims, input: WithdrawalRequest): Promise<void> {
  await changeUser(ctx, 'withdrawalRequest', caller.userId, (user) => {
    if (user.status !== 'ACTIVE') throw new AppError('U0008');
    return { status: 'WITHDRAWAL_REQUESTED', withdrawal: { reasons: input.reason, content: input.content, requestedAt: ctx.now() } };
  });
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

export interface WithdrawalListQuery extends PageRequest {
  /** A substring of the userName or nickname (issue 40's filters on the withdrawal queue). */
  search?: string;
  userType?: UserType;
  /** Oldest request first unless asked otherwise. */
  sort?: SortOrder<'requestedAt'>;
}

export async function listWithdrawals(ctx: AccountsContext, query: WithdrawalListQuery): Promise<PageObject<WithdrawalItem>> {
  const { search, userType, sort, ...request } = query;
  const filter: FilterQuery<UserDoc> = { ...OPEN_WITHDRAWAL };
  if (userType) filter.userType = userType;
  if (search) {
    const pattern = new RegExp(escapeRegex(search), 'i');
    filter.$or = [{ userName: pattern }, { nickName: pattern }];
  }
  const direction = sort?.direction ?? 1;
  const { skip, limit } = pageWindow(request);
  const [users, total] = await Promise.all([
    ctx.models.users
      .find(filter, { pendingEvents: 0, passwordHash: 0 })
      .sort({ 'withdrawal.requestedAt': direction, _id: direction })
      .skip(skip)
      .limit(limit)
      .lean<UserDoc[]>()
      .exec(),
    ctx.models.users.countDocuments(filter).exec(),
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

export async function completeWithdrawal(ctx: AccountsContext, admin: AuthClaims, input: { userId: number }): Promise<number> {
  const { userId } = input;
  const audit = () => auditEvent('accounts', admin, { action: 'COMPLETE_WITHDRAWAL', targetType: 'USER', targetId: userId, memberId: userId }, ctx.now());
  await changeUser(
    ctx,
    'withdrawalCompletion',
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
    audit,
  );
  await endSessions(ctx, userId);
  return userId;
}
