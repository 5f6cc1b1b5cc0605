/**
 * The administrators' endpoints exactly as ../shared/design/backoffice.md describes them (camelCase, 0-based
 * pages with totalElements/totalPages), plus the two public reads the console needs. The shapes are the API
 * document's, from the typed client package (@binzip/api-client), not written here a second time.
 */
import type { Schema } from '@binzip/api-client';
import type { ApiClient } from './client';

/** The page object of the admin lists (0-based `number`, totals). */
export type Page<T> = Omit<Schema<'HouseListPage'>, 'content'> & { content: T[] };

export interface PageQuery {
  page?: number;
  size?: number;
}

export const USER_STATUSES = ['ACTIVE', 'SUSPENDED', 'WITHDRAWAL_REQUESTED', 'WITHDRAWN'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const USER_TYPES = ['NONE', 'AGENT', 'WEB', 'SERVER'] as const;
export type UserType = (typeof USER_TYPES)[number];

export type AdminUser = Schema<'AccountsAdminUserItem'>;

export interface UserQuery extends PageQuery {
  search?: string;
  userType?: UserType | '';
  status?: UserStatus | '';
}

export type WithdrawalRequest = Schema<'AccountsWithdrawalItem'>;

export type ReportStatus = 'OPEN' | 'CLOSED';
export type ReportAction = 'DISMISS' | 'REMOVE';

export type HouseReport = ReportedHouse['reports'][number];

export type ReportedHouse = Schema<'HouseAdminReportItem'>;

/** An item of the approval queue and of the public list (the spec's house list item). */
export type HouseListItem = Schema<'HouseListItem'>;

export type RentalType = 'SALE' | 'JEONSE' | 'MONTHLYRENT';
export type DealState = 'APPLYING' | 'ONGOING' | 'COMPLETED' | 'REJECTED';

/** An item of the public board list. */
export type BoardItem = Schema<'CommunityBoardItem'>;

export const AGE_BANDS = ['TEN', 'TWENTY', 'THIRTY', 'FORTY', 'FIFTY', 'SIXTY'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

export type UserStats = Schema<'AccountsUserStats'>;

export type HouseStats = Schema<'HouseStats'>;

const id = (value: number) => encodeURIComponent(String(value));

export function adminApi(client: ApiClient) {
  return {
    users: {
      list: (query: UserQuery) => client.request<Page<AdminUser>>('GET', '/api/v1/admin/users', { query: { ...query } }),
      suspend: (userId: number, reason: string) => client.request<number>('PUT', `/api/v1/admin/users/${id(userId)}/suspension`, { body: { reason } }),
      lift: (userId: number) => client.request<void>('DELETE', `/api/v1/admin/users/${id(userId)}/suspension`),
    },
    withdrawals: {
      list: (query: PageQuery) => client.request<Page<WithdrawalRequest>>('GET', '/api/v1/admin/withdrawals', { query: { ...query } }),
      complete: (userId: number) => client.request<void>('PUT', `/api/v1/admin/withdrawals/${id(userId)}`),
    },
    reports: {
      list: (query: PageQuery & { status: ReportStatus }) => client.request<Page<ReportedHouse>>('GET', '/api/v1/admin/reports', { query: { ...query } }),
      decide: (houseId: number, action: ReportAction) => client.request<number>('PUT', `/api/v1/admin/reports/${id(houseId)}`, { body: { action } }),
    },
    approvals: {
      list: (query: PageQuery) => client.request<Page<HouseListItem>>('GET', '/api/v1/houses/apply', { query: { ...query } }),
      approve: (houseId: number) => client.request<number>('PUT', `/api/v1/houses/apply/${id(houseId)}`, { body: { approve: true } }),
      reject: (houseId: number, reason: string) => client.request<number>('PUT', `/api/v1/houses/apply/${id(houseId)}`, { body: { approve: false, reason } }),
    },
    boards: {
      /** The public list of promotion posts (pinned first), which is what an administrator pins from. */
      promotions: (query: PageQuery & { search?: string }) =>
        client.request<Page<BoardItem>>('GET', '/api/v1/boards', { query: { prefix: 'ADVERTISEMENT', ...query }, auth: false }),
      setFixed: (boardId: number, fixed: boolean) => client.request<number>('PUT', `/api/v1/admin/boards/${id(boardId)}/fixed`, { body: { fixed } }),
    },
    stats: {
      users: () => client.request<UserStats>('GET', '/api/v1/admin/stats/users'),
      houses: () => client.request<HouseStats>('GET', '/api/v1/admin/stats/houses'),
    },
  };
}

export type AdminApi = ReturnType<typeof adminApi>;
