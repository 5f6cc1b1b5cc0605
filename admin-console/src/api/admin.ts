/**
 * The administrators' endpoints exactly as ../shared/design/backoffice.md describes them (camelCase, 0-based
 * pages with totalElements/totalPages), plus the public read of promotion posts the console needs. Paths,
 * parameters, bodies and shapes are the API document's, through the typed client package (@binzip/api-client),
 * not written here a second time.
 */
import type { BinzipClient, Schema } from '@binzip/api-client';

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

/** The filters without the ones left empty in the forms ('' means "any", which the API says by leaving them out). */
function filled<Q extends object>(query: Q): { [K in keyof Q]?: Exclude<Q[K], '' | null> } {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined && value !== null && value !== '')) as {
    [K in keyof Q]?: Exclude<Q[K], '' | null>;
  };
}

export function adminApi({ api, data }: BinzipClient) {
  return {
    users: {
      list: (query: UserQuery) => data(api.GET('/api/v1/admin/users', { params: { query: filled(query) } })),
      suspend: (userId: number, reason: string) => data(api.PUT('/api/v1/admin/users/{id}/suspension', { params: { path: { id: userId } }, body: { reason } })),
      lift: (userId: number) => data(api.DELETE('/api/v1/admin/users/{id}/suspension', { params: { path: { id: userId } } })),
    },
    withdrawals: {
      list: (query: PageQuery) => data(api.GET('/api/v1/admin/withdrawals', { params: { query } })),
      complete: (userId: number) => data(api.PUT('/api/v1/admin/withdrawals/{userId}', { params: { path: { userId } } })),
    },
    reports: {
      list: (query: PageQuery & { status: ReportStatus }) => data(api.GET('/api/v1/admin/reports', { params: { query } })),
      decide: (houseId: number, action: ReportAction) => data(api.PUT('/api/v1/admin/reports/{houseId}', { params: { path: { houseId } }, body: { action } })),
    },
    approvals: {
      list: (query: PageQuery) => data(api.GET('/api/v1/houses/apply', { params: { query } })),
      approve: (houseId: number) => data(api.PUT('/api/v1/houses/apply/{houseId}', { params: { path: { houseId } }, body: { approve: true } })),
      reject: (houseId: number, reason: string) =>
        data(api.PUT('/api/v1/houses/apply/{houseId}', { params: { path: { houseId } }, body: { approve: false, reason } })),
    },
    boards: {
      /** The public list of promotion posts (pinned first), which is what an administrator pins from. */
      promotions: (query: PageQuery & { search?: string }) =>
        data(api.GET('/api/v1/boards', { params: { query: { prefix: 'ADVERTISEMENT', ...filled(query) } } })),
      setFixed: (boardId: number, fixed: boolean) => data(api.PUT('/api/v1/admin/boards/{boardId}/fixed', { params: { path: { boardId } }, body: { fixed } })),
    },
    stats: {
      users: () => data(api.GET('/api/v1/admin/stats/users')),
      houses: () => data(api.GET('/api/v1/admin/stats/houses')),
    },
  };
}

export type AdminApi = ReturnType<typeof adminApi>;
