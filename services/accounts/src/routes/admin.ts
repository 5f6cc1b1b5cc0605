import { operationsOf } from '@binzip/shared';
import { liftSuspension, listUsers, suspendUser } from '../domain/admin-members';
import { userStats } from '../domain/admin-stats';
import { listAudit } from '../domain/audit';
import type { AccountsContext } from '../domain/context';
import { completeWithdrawal, listWithdrawals } from '../domain/withdrawals';
import {
  adminUserListQuery,
  adminUserPageSchema,
  adminUserParams,
  auditListQuery,
  auditPageSchema,
  suspensionBody,
  userIdSchema,
  userStatsSchema,
  withdrawalListQuery,
  withdrawalPageSchema,
  withdrawalParams,
} from './schemas';

const operation = operationsOf<AccountsContext>();

/** /api/v1/admin/users, /api/v1/admin/withdrawals, /api/v1/admin/stats/users: administrators only. */
export const adminOperations = [
  operation({
    method: 'get',
    path: '/api/v1/admin/users',
    operationId: 'adminListUsers',
    summary: '회원 목록 (관리자)',
    tags: ['admin-users'],
    access: 'admin',
    query: adminUserListQuery,
    data: adminUserPageSchema,
    handle: (ctx, { query }) => listUsers(ctx, query),
  }),
  operation({
    method: 'put',
    path: '/api/v1/admin/users/{id}/suspension',
    operationId: 'adminSuspendUser',
    summary: '회원 정지 (관리자)',
    description: "Revokes every refresh token of the member; the member's writes answer U0012 in every service.",
    tags: ['admin-users'],
    access: 'admin',
    params: adminUserParams,
    body: suspensionBody,
    data: userIdSchema,
    errors: ['C0001', 'C0003', 'C0004'],
    handle: (ctx, { caller, params, body }) => suspendUser(ctx, caller, { ...params, ...body }),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/admin/users/{id}/suspension',
    operationId: 'adminLiftSuspension',
    summary: '회원 정지 해제 (관리자)',
    tags: ['admin-users'],
    access: 'admin',
    params: adminUserParams,
    data: userIdSchema,
    errors: ['C0001', 'C0004'],
    handle: (ctx, { caller, params }) => liftSuspension(ctx, caller, params),
  }),
  operation({
    method: 'get',
    path: '/api/v1/admin/withdrawals',
    operationId: 'adminListWithdrawals',
    summary: '탈퇴 신청 목록 (관리자)',
    tags: ['admin-withdrawals'],
    access: 'admin',
    query: withdrawalListQuery,
    data: withdrawalPageSchema,
    handle: (ctx, { query }) => listWithdrawals(ctx, query),
  }),
  operation({
    method: 'put',
    path: '/api/v1/admin/withdrawals/{userId}',
    operationId: 'adminCompleteWithdrawal',
    summary: '탈퇴 처리 (관리자)',
    description: 'Erases the personal data and ends every session.',
    tags: ['admin-withdrawals'],
    access: 'admin',
    params: withdrawalParams,
    data: userIdSchema,
    errors: ['C0001', 'C0004'],
    handle: (ctx, { caller, params }) => completeWithdrawal(ctx, caller, params),
  }),
  operation({
    method: 'get',
    path: '/api/v1/admin/stats/users',
    operationId: 'adminUserStats',
    summary: '회원 통계 (관리자)',
    tags: ['admin-stats'],
    access: 'admin',
    data: userStatsSchema,
    handle: (ctx) => userStats(ctx),
  }),
  operation({
    method: 'get',
    path: '/api/v1/admin/audit',
    operationId: 'adminListAudit',
    summary: '관리자 처리 기록 (최신순; 모든 서비스의 승인, 거절, 정지, 삭제, 고정, 탈퇴 완료, 신고 처리)',
    description:
      'Read-only: no operation changes or deletes an entry. Each service records its action in the same write as the action ' +
      '(its outbox); accounts keeps every entry once. The actor is as at the time of the action.',
    tags: ['admin-audit'],
    access: 'admin',
    query: auditListQuery,
    data: auditPageSchema,
    handle: (ctx, { query }) => listAudit(ctx, query),
  }),
];
