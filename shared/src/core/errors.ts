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
