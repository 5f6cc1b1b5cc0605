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
