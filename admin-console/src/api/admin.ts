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

/** `sort=<field>,<asc|desc>` as every admin list takes it (issue 40). */
export type SortDirection = 'asc' | 'desc';

export interface UserQuery extends PageQuery {
  search?: string;
  userType?: UserType | '';
  status?: UserStatus | '';
  sort?: `${'createdAt' | 'reportCount'},${SortDirection}`;
}

export interface WithdrawalQuery extends PageQuery {
  search?: string;
  userType?: UserType | '';
  sort?: `requestedAt,${SortDirection}`;
}

export interface ApprovalQuery extends PageQuery {
  search?: string;
  rentalType?: RentalType | '';
  city?: string;
  sort?: `updatedAt,${SortDirection}`;
}

export const AUDIT_TARGET_TYPES = ['HOUSE', 'USER', 'BOARD', 'COMMENT', 'REPORT', 'RECORD'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
export type AuditEntry = Schema<'AuditEntry'>;

export interface AuditQuery extends PageQuery {
  actor?: string;
  action?: string;
  targetType?: AuditTargetType | '';
  targetId?: number;
  memberId?: number;
  from?: string;
  to?: string;
}

/** One row's outcome of a bulk decision. */
export type BulkOutcome = Schema<'BulkOutcome'>;

/** A listing as members read it (the detail), with the administrators' `moderation`. */
export type HouseDetail = Schema<'HouseListingDetail'>;

export type WithdrawalRequest = Schema<'AccountsWithdrawalItem'>;

export type ReportStatus = 'OPEN' | 'CLOSED';
export type ReportAction = 'DISMISS' | 'REMOVE';

export type HouseReport = ReportedHouse['reports'][number];

export type ReportedHouse = Schema<'HouseAdminReportItem'>;

/** A reported post (issue 40), one item per post with its reports, as the listing reports are. */
export type ReportedBoard = Schema<'BoardAdminReportItem'>;

/** A post as members read it. */
export type BoardDetail = Schema<'CommunityBoardDetail'>;

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
export type AlertStats = Schema<'NotificationAlertStats'>;

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
      list: (query: WithdrawalQuery) => data(api.GET('/api/v1/admin/withdrawals', { params: { query: filled(query) } })),
      complete: (userId: number) => data(api.PUT('/api/v1/admin/withdrawals/{userId}', { params: { path: { userId } } })),
    },
    reports: {
      list: (query: PageQuery & { status: ReportStatus; sort?: `lastReportedAt,${SortDirection}` }) =>
        data(api.GET('/api/v1/admin/reports', { params: { query } })),
      decide: (houseId: number, action: ReportAction, note?: string) =>
        data(api.PUT('/api/v1/admin/reports/{houseId}', { params: { path: { houseId } }, body: { action, ...(note ? { note } : {}) } })),
    },
    boardReports: {
      list: (query: PageQuery & { status: ReportStatus; sort?: `lastReportedAt,${SortDirection}` }) =>
        data(api.GET('/api/v1/admin/boards/reports', { params: { query } })),
      decide: (boardId: number, action: ReportAction, note?: string) =>
        data(api.PUT('/api/v1/admin/boards/reports/{boardId}', { params: { path: { boardId } }, body: { action, ...(note ? { note } : {}) } })),
    },
    approvals: {
      list: (query: ApprovalQuery) => data(api.GET('/api/v1/houses/apply', { params: { query: filled(query) } })),
      /** One decision on several listings: one outcome per id, a failure does not undo the others. */
      bulk: (ids: number[], approve: boolean, reason?: string) =>
        data(api.POST('/api/v1/admin/houses/apply', { body: { ids, approve, ...(reason ? { reason } : {}) } })),
      approve: (houseId: number) => data(api.PUT('/api/v1/houses/apply/{houseId}', { params: { path: { houseId } }, body: { approve: true } })),
      reject: (houseId: number, reason: string) =>
        data(api.PUT('/api/v1/houses/apply/{houseId}', { params: { path: { houseId } }, body: { approve: false, reason } })),
    },
    boards: {
      /** The public list of promotion posts (pinned first), which is what an administrator pins from. */
      promotions: (query: PageQuery & { search?: string }) =>
        data(api.GET('/api/v1/boards', { params: { query: { prefix: 'ADVERTISEMENT', ...filled(query) } } })),
      /** A post as members read it (a removed post is C0001). */
      detail: (boardId: number) => data(api.GET('/api/v1/boards/{boardId}', { params: { path: { boardId } } })),
      setFixed: (boardId: number, fixed: boolean) => data(api.PUT('/api/v1/admin/boards/{boardId}/fixed', { params: { path: { boardId } }, body: { fixed } })),
    },
    houses: {
      /** The listing as members read it (administrators read any saved listing), with `moderation`. */
      detail: (houseId: number) => data(api.GET('/api/v1/houses/{houseId}', { params: { path: { houseId } } })),
      /** The public list searched by the author's nickname: the author's other listings are among these. */
      byNickName: (nickName: string) => data(api.GET('/api/v1/houses', { params: { query: { search: nickName, size: 50 } } })),
    },
    audit: {
      list: (query: AuditQuery) => data(api.GET('/api/v1/admin/audit', { params: { query: filled(query) } })),
    },
    stats: {
      users: () => data(api.GET('/api/v1/admin/stats/users')),
      houses: () => data(api.GET('/api/v1/admin/stats/houses')),
      /** Saved-search alerts (LISTING_MATCH notices) sent per day, Korean days, oldest first (issue 38). */
      alerts: (days: number) => data(api.GET('/api/v1/admin/stats/notifications', { params: { query: { days } } })),
    },
  };
}

export type AdminApi = ReturnType<typeof adminApi>;
