/**
 * The administrators' endpoints exactly as ../shared/design/backoffice.md describes them (camelCase, 0-based
 * pages with totalElements/totalPages), plus the two public reads the console needs.
 */
import type { ApiClient } from './client';

export interface Page<T> {
  content: T[];
  size: number;
  number: number;
  totalElements: number;
  totalPages: number;
  first: boolean;
  last: boolean;
  numberOfElements: number;
  empty: boolean;
}

export interface PageQuery {
  page?: number;
  size?: number;
}

export const USER_STATUSES = ['ACTIVE', 'SUSPENDED', 'WITHDRAWAL_REQUESTED', 'WITHDRAWN'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const USER_TYPES = ['NONE', 'AGENT', 'WEB', 'SERVER'] as const;
export type UserType = (typeof USER_TYPES)[number];

export interface AdminUser {
  id: number;
  userName: string | null;
  nickName: string;
  email: string | null;
  phoneNum: string | null;
  userType: UserType;
  authority: 'USER' | 'ADMIN';
  status: UserStatus;
  createdAt: string;
  suspenseReason: string | null;
  reportedAt: string | null;
  reportCount: number;
}

export interface UserQuery extends PageQuery {
  search?: string;
  userType?: UserType | '';
  status?: UserStatus | '';
}

export interface WithdrawalRequest {
  userId: number;
  userName: string;
  nickName: string;
  userType: UserType;
  reasons: string[];
  content: string | null;
  requestedAt: string;
}

export type ReportStatus = 'OPEN' | 'CLOSED';
export type ReportAction = 'DISMISS' | 'REMOVE';

export interface HouseReport {
  reportType: string;
  reportTypeName: string;
  reportReason: string;
  reporterNickName: string;
  createdAt: string;
}

export interface ReportedHouse {
  houseId: number;
  title: string;
  authorId: number;
  nickName: string;
  reportCount: number;
  lastReportedAt: string;
  status: ReportStatus;
  reports: HouseReport[];
}

/** An item of the approval queue and of the public list (the spec's house list item). */
export interface HouseListItem {
  houseId: number;
  rentalType: RentalType;
  city: string;
  price: number;
  monthlyPrice: number;
  nickName: string;
  createdAt: string;
  isCompleted: boolean;
  imageUrl: string | null;
  title: string;
  recommendedTag: string[];
  recommendedTagName: string[];
}

export type RentalType = 'SALE' | 'JEONSE' | 'MONTHLYRENT';
export type DealState = 'APPLYING' | 'ONGOING' | 'COMPLETED' | 'REJECTED';

/** An item of the public board list. */
export interface BoardItem {
  boardId: number;
  title: string;
  code: string;
  oneLineContent: string;
  nickName: string;
  createdAt: string;
  imageUrl: string | null;
  commentCount: number;
  category: string | null;
  prefixCategory: string;
  fixed: boolean;
}

export const AGE_BANDS = ['TEN', 'TWENTY', 'THIRTY', 'FORTY', 'FIFTY', 'SIXTY'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

export interface UserStats {
  total: number;
  byUserType: Record<UserType, number>;
  byAge: Record<AgeBand, number>;
  byJoinPath: Array<{ joinPath: string; count: number }>;
  signUpsByDay: Array<{ date: string; count: number }>;
}

export interface HouseStats {
  total: number;
  byDealState: Record<DealState, number>;
  byRentalType: Record<RentalType, number>;
  byRegion: Array<{ region: string; count: number }>;
  reportedOpen: number;
}

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
