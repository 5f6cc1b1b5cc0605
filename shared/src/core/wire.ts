/**
 * What the wire contract fixes for every answer, in one place: the envelope, the error codes with their statuses
 * and Korean messages, the page object and the timestamp format.
 */
import type { Response } from 'express';

/**
 * Every error code the API can answer with, its HTTP status and its Korean message.
 * The spec lists the format messages for C0002; decisions.md settles the rest.
 */
export const ErrorCodes = {
  C0000: { status: 500, message: '예기치 못한 오류가 발생했습니다.' },
  C0001: { status: 404, message: '존재하지 않는 리소스 요청입니다.' },
  C0002: { status: 400, message: '올바르지 않은 요청 값입니다.' },
  C0003: { status: 403, message: '해당 요청에 대한 권한이 없습니다.' },
  C0004: { status: 429, message: '트래픽이 초과되었으므로 잠시 후에 다시 요청해주세요.' },
  J0000: { status: 401, message: '권한 정보가 없는 토큰입니다.' },
  J0001: { status: 401, message: '잘못된 JWT 서명입니다.' },
  J0002: { status: 401, message: '만료된 JWT 토큰입니다.' },
  J0004: { status: 401, message: 'JWT 토큰이 잘못되었습니다.' },
  J0006: { status: 403, message: '권한이 없습니다.' },
  U0000: { status: 400, message: '이미 가입된 전화번호입니다.' },
  U0001: { status: 400, message: '존재하지 않는 아이디입니다.' },
  U0002: { status: 400, message: '비밀번호가 일치하지 않습니다.' },
  U0005: { status: 400, message: '이미 존재하는 닉네임입니다.' },
  U0006: { status: 400, message: '비밀번호가 같습니다.' },
  U0007: { status: 400, message: '이미 가입된 아이디입니다.' },
  U0008: { status: 400, message: '이미 탈퇴신청 되었습니다.' },
  U0009: { status: 400, message: '필수 약관에 미동의하셨습니다.' },
  U0010: { status: 400, message: '이미 가입된 이메일입니다.' },
  U0011: { status: 400, message: '인증이 완료되지 않았습니다.' },
  U0012: { status: 403, message: '이용이 정지된 계정입니다.' },
  B0001: { status: 400, message: '고정할 수 있는 게시글 수를 초과했습니다.' },
  P0000: { status: 400, message: '이미 좋아요를 한 게시글입니다.' },
  H0000: { status: 400, message: '빈집 게시글의 내용이 10000자를 넘었습니다.' },
  H0001: { status: 403, message: '게시글 작성자 본인이 자신의 게시글을 신고할 수 없습니다.' },
  H0002: { status: 400, message: '이미 스크랩한 게시글입니다.' },
  H0003: { status: 400, message: '이미 신고처리된 게시글입니다.' },
  H0004: { status: 400, message: '판매상태를 변경할 수 없는 데이터입니다.' },
  R0000: { status: 400, message: '이미 승인처리된 글입니다.' },
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

/** The spec's exact format messages for C0002. */
export const FormatMessages = {
  password: '비밀번호 형식에 맞지 않습니다.',
  nickName: '닉네임 형식에 맞지 않습니다.',
  phone: '전화번호 형식에 맞지 않습니다.',
  code: '인증번호 형식에 맞지 않습니다.',
} as const;

/** Statuses the gateway answers with when an upstream is down; not client mistakes, not in the code table. */
export const GatewayFaults = {
  unavailable: { status: 503, code: 'C0000', message: '서비스를 일시적으로 사용할 수 없습니다.' },
  timeout: { status: 504, code: 'C0000', message: '서비스 응답 시간이 초과되었습니다.' },
  tooLarge: { status: 413, code: 'C0002', message: '요청 본문이 너무 큽니다.' },
  bodyTimeout: { status: 408, code: 'C0002', message: '요청 본문이 제시간에 도착하지 않았습니다.' },
} as const;

/** The one error type every layer throws; the error handler renders it as the envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message?: string, status?: number) {
    super(message ?? ErrorCodes[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = status ?? ErrorCodes[code].status;
  }

  static notFound(): AppError {
    return new AppError('C0001');
  }

  static forbidden(): AppError {
    return new AppError('C0003');
  }

  static invalid(message?: string): AppError {
    return new AppError('C0002', message);
  }
}

/** 429 C0004 with the seconds after which a retry can succeed (rendered as `Retry-After` by the error handler). */
export class TooManyRequestsError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('C0004');
  }
}

/**
 * 503 C0000 with the seconds after which a retry can succeed: the service cannot take this work on in time (its
 * own capacity, not the client's traffic), said at once rather than left for the gateway to time out (issue 34).
 */
export class ServiceBusyError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('C0000', GatewayFaults.unavailable.message, GatewayFaults.unavailable.status);
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

export const SUCCESS_MESSAGE = '성공';

export interface Envelope<T = unknown> {
  code: string;
  message: string;
  data?: T;
}

/** `data` is left out entirely (not null) when there is nothing to return. */
export function successEnvelope<T>(data?: T): Envelope<T> {
  return data === undefined ? { code: 'SUCCESS', message: SUCCESS_MESSAGE } : { code: 'SUCCESS', message: SUCCESS_MESSAGE, data };
}

export function errorEnvelope(code: string, message: string): Envelope<never> {
  return { code, message };
}

export function sendOk<T>(res: Response, data?: T): void {
  res.status(200).json(successEnvelope(data));
}

/**
 * The spec's page object (Spring's Page/Slice JSON). Board, house and record lists carry the totals;
 * the notification list does not; some lists add `pageable`.
 */
export interface SortInfo {
  empty: boolean;
  unsorted: boolean;
  sorted: boolean;
}

export interface Pageable {
  sort: SortInfo;
  offset: number;
  pageSize: number;
  pageNumber: number;
  paged: boolean;
  unpaged: boolean;
}

export interface PageObject<T> {
  content: T[];
  pageable?: Pageable;
  totalElements?: number;
  totalPages?: number;
  last: boolean;
  size: number;
  number: number;
  sort: SortInfo;
  first: boolean;
  numberOfElements: number;
  empty: boolean;
}

export interface PageRequest {
  page: number;
  size: number;
}

interface PageOptions {
  /** Whether the list is ordered (it is, in every list this service has). */
  sorted?: boolean;
  /** Add the `pageable` member. */
  withPageable?: boolean;
}

function sortInfo(sorted: boolean): SortInfo {
  return { empty: !sorted, unsorted: !sorted, sorted };
}

function base<T>(content: T[], request: PageRequest, last: boolean, options: PageOptions): PageObject<T> {
  const sort = sortInfo(options.sorted ?? true);
  const page: PageObject<T> = {
    content,
    last,
    size: request.size,
    number: request.page,
    sort,
    first: request.page === 0,
    numberOfElements: content.length,
    empty: content.length === 0,
  };
  if (options.withPageable) {
    page.pageable = {
      sort,
      offset: request.page * request.size,
      pageSize: request.size,
      pageNumber: request.page,
      paged: true,
      unpaged: false,
    };
  }
  return page;
}

/** A page that knows the total count. */
export function buildPage<T>(content: T[], request: PageRequest, totalElements: number, options: PageOptions = {}): PageObject<T> {
  const totalPages = Math.ceil(totalElements / request.size);
  return { ...base(content, request, request.page + 1 >= totalPages, options), totalElements, totalPages };
}

/** A slice: no totals, `last` from whether another item exists after this page. */
export function buildSlice<T>(content: T[], request: PageRequest, hasNext: boolean, options: PageOptions = {}): PageObject<T> {
  return base(content, request, !hasNext, options);
}

/** skip/limit for a page request. */
export function pageWindow(request: PageRequest): { skip: number; limit: number } {
  return { skip: request.page * request.size, limit: request.size };
}

/**
 * A page's rows and the total they are a page of, counting only when the rows cannot tell: a page that is not
 * full is the last one (total = skip + rows), and an empty first page means there are none. For a member's own
 * lists, short as a rule, that is one store round trip instead of two; a full page asks the count after the rows.
 */
export async function rowsAndTotal<T>(
  window: { skip: number; limit: number },
  rows: () => Promise<T[]>,
  count: () => Promise<number>,
): Promise<{ rows: T[]; total: number }> {
  const found = await rows();
  if (found.length > 0 && found.length < window.limit) return { rows: found, total: window.skip + found.length };
  if (found.length === 0 && window.skip === 0) return { rows: found, total: 0 };
  return { rows: found, total: await count() };
}

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
