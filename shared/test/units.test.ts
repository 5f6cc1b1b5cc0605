import jwt from 'jsonwebtoken';
import {
  AppError,
  ErrorCodes,
  buildPage,
  rowsAndTotal,
  buildSlice,
  generateDevKeyPair,
  signAccessToken,
  toIsoOffset,
  toMonthDayYear,
  verifyAccessJwt,
  verifyAuthorizationHeader,
} from '../src';

describe('page builder', () => {
  it('builds a page with totals in the spec shape', () => {
    const page = buildPage(['a', 'b'], { page: 1, size: 2 }, 5);
    expect(page).toEqual({
      content: ['a', 'b'],
      totalElements: 5,
      totalPages: 3,
      last: false,
      size: 2,
      number: 1,
      sort: { empty: false, unsorted: false, sorted: true },
      first: false,
      numberOfElements: 2,
      empty: false,
    });
    expect('pageable' in page).toBe(false);
  });

  it('marks the last page, empty pages and adds pageable on request', () => {
    const last = buildPage(['e'], { page: 2, size: 2 }, 5, { withPageable: true });
    expect(last.last).toBe(true);
    expect(last.pageable).toEqual({
      sort: { empty: false, unsorted: false, sorted: true },
      offset: 4,
      pageSize: 2,
      pageNumber: 2,
      paged: true,
      unpaged: false,
    });
    const none = buildPage([], { page: 0, size: 8 }, 0);
    expect(none).toMatchObject({ empty: true, first: true, last: true, totalPages: 0, numberOfElements: 0 });
  });

  it('builds a slice without totals', () => {
    const slice = buildSlice([1, 2, 3], { page: 0, size: 3 }, true, { withPageable: true });
    expect(slice.last).toBe(false);
    expect('totalElements' in slice).toBe(false);
    expect('totalPages' in slice).toBe(false);
    expect(buildSlice([1], { page: 0, size: 3 }, false).last).toBe(true);
  });
});

describe('time formats', () => {
  const instant = new Date('2024-03-04T15:03:11.042Z');
  it('renders ISO 8601 in KST with offset and milliseconds', () => {
    expect(toIsoOffset(instant)).toBe('2024-03-05T00:03:11.042+09:00');
    expect(new Date(toIsoOffset(instant)).getTime()).toBe(instant.getTime());
  });
  it('renders month.day.year for records', () => {
    expect(toMonthDayYear(instant)).toBe('03.05.2024');
    expect(toMonthDayYear(new Date('2023-12-31T14:59:59.999Z'))).toBe('12.31.2023');
  });
});

describe('access tokens', () => {
  const keys = generateDevKeyPair();
  const claims = { userId: 12, userName: 'kim', authority: 'ADMIN' as const, userType: 'SERVER' as const };

  const codeOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      return (err as AppError).code;
    }
    return 'none';
  };

  it('round-trips the claims', () => {
    expect(verifyAccessJwt(signAccessToken(claims, keys.privateKey), keys.publicKey)).toEqual(claims);
    expect(verifyAuthorizationHeader(undefined, keys.publicKey)).toBeNull();
  });

  it('maps each failure to its J code', () => {
    expect(codeOf(() => verifyAccessJwt(signAccessToken(claims, keys.privateKey, -1), keys.publicKey))).toBe('J0002');
    expect(verifyAccessJwt(signAccessToken(claims, keys.privateKey, -1), keys.publicKey, { ignoreExpiration: true })).toEqual(claims);
    expect(codeOf(() => verifyAccessJwt(signAccessToken(claims, generateDevKeyPair().privateKey), keys.publicKey))).toBe('J0001');
    expect(codeOf(() => verifyAuthorizationHeader(signAccessToken(claims, keys.privateKey), keys.publicKey))).toBe('J0004');
    expect(codeOf(() => verifyAccessJwt('abc.def', keys.publicKey))).toBe('J0004');
    const wrongKind = jwt.sign({ userName: 'kim', authority: 'USER', userType: 'NONE', typ: 'refresh' }, keys.privateKey, { algorithm: 'ES256', subject: '1' });
    expect(codeOf(() => verifyAccessJwt(wrongKind, keys.publicKey))).toBe('J0004');
    const hs = jwt.sign({ userName: 'kim', authority: 'USER', userType: 'NONE', typ: 'access' }, 'shared-secret', { subject: '1' });
    expect(codeOf(() => verifyAccessJwt(hs, keys.publicKey))).toBe('J0004');
  });

  it('refuses a token signed with the real key but without an expiry (it would be valid forever)', () => {
    const forever = jwt.sign({ userName: 'kim', authority: 'USER', userType: 'NONE', typ: 'access' }, keys.privateKey, { algorithm: 'ES256', subject: '1' });
    expect(codeOf(() => verifyAccessJwt(forever, keys.publicKey))).toBe('J0004');
    expect(codeOf(() => verifyAccessJwt(forever, keys.publicKey, { ignoreExpiration: true }))).toBe('J0004');
  });

  it('carries the session id as claim sid', () => {
    const token = signAccessToken({ ...claims, sessionId: 'family-1' }, keys.privateKey);
    expect(jwt.decode(token)).toMatchObject({ sid: 'family-1' });
    expect(verifyAccessJwt(token, keys.publicKey)).toEqual({ ...claims, sessionId: 'family-1' });
  });
});

describe('error table', () => {
  it('holds every code decisions.md lists with its status', () => {
    const expected: Record<string, number> = {
      C0000: 500,
      C0001: 404,
      C0002: 400,
      C0003: 403,
      C0004: 429,
      J0000: 401,
      J0001: 401,
      J0002: 401,
      J0004: 401,
      J0006: 403,
      U0000: 400,
      U0001: 400,
      U0002: 400,
      U0005: 400,
      U0006: 400,
      U0007: 400,
      U0008: 400,
      U0009: 400,
      U0010: 400,
      U0011: 400,
      U0012: 403,
      B0001: 400,
      P0000: 400,
      H0000: 400,
      H0001: 403,
      H0002: 400,
      H0003: 400,
      H0004: 400,
      R0000: 400,
    };
    expect(Object.fromEntries(Object.entries(ErrorCodes).map(([code, e]) => [code, e.status]))).toEqual(expected);
    expect(new AppError('U0008').message).toBe('이미 탈퇴신청 되었습니다.');
    expect(new AppError('U0012').message).toBe('이용이 정지된 계정입니다.');
    expect(new AppError('B0001').message).toBe('고정할 수 있는 게시글 수를 초과했습니다.');
  });
});

describe('rowsAndTotal', () => {
  const counted = (total: number) => {
    const calls = { count: 0 };
    return { calls, count: async () => (calls.count++, total) };
  };

  it('takes the total from a page that is not full, and from an empty first page, without counting', async () => {
    const short = counted(99);
    await expect(rowsAndTotal({ skip: 20, limit: 10 }, async () => [1, 2, 3], short.count)).resolves.toEqual({ rows: [1, 2, 3], total: 23 });
    await expect(rowsAndTotal({ skip: 0, limit: 10 }, async () => [], short.count)).resolves.toEqual({ rows: [], total: 0 });
    expect(short.calls.count).toBe(0);
  });

  it('counts for a full page and for an empty page past the first (the rows cannot tell how many there are)', async () => {
    const full = counted(57);
    await expect(rowsAndTotal({ skip: 0, limit: 2 }, async () => ['a', 'b'], full.count)).resolves.toEqual({ rows: ['a', 'b'], total: 57 });
    await expect(rowsAndTotal({ skip: 100, limit: 2 }, async () => [], full.count)).resolves.toEqual({ rows: [], total: 57 });
    expect(full.calls.count).toBe(2);
  });
});
