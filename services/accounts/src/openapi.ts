import { createApiRegistry, generateApiDocument, registerOperation, type ApiDocument, type ErrorCode, type OperationSpec } from '@binzip/shared';
import {
  accessTokenSchema,
  adminUserListQuery,
  adminUserPageSchema,
  adminUserParams,
  agentSignUpBody,
  checkResultSchema,
  emailBody,
  emailCheckBody,
  newPasswordBody,
  nickNameBody,
  passwordCheckBody,
  phoneBody,
  profileUpdateBody,
  reissueBody,
  signInBody,
  smsCheckBody,
  suspensionBody,
  userIdSchema,
  userNameBody,
  userProfileSchema,
  userSignUpBody,
  userStatsSchema,
  withdrawalBody,
  withdrawalListQuery,
  withdrawalPageSchema,
  withdrawalParams,
  fieldLabels,
} from './routes/schemas';

const USERS = ['users'];
const AGENTS = ['agents'];
const ADMIN_USERS = ['admin-users'];
const ADMIN_WITHDRAWALS = ['admin-withdrawals'];
const ADMIN_STATS = ['admin-stats'];

const SET_REFRESH_COOKIE: OperationSpec['successHeaders'] = {
  'Set-Cookie': {
    description: '`RefreshToken=<opaque>; Path=/; Max-Age=604800; Secure; HttpOnly; SameSite=None` (the new refresh token)',
    schema: { type: 'string' },
  },
};

/**
 * A sign-up's clashes in decisions.md's order, its mandatory terms, the missing verification of its contacts
 * (U0011), and the per-address sign-up ceiling (C0004).
 */
const SIGN_UP_ERRORS: ErrorCode[] = ['U0007', 'U0005', 'U0000', 'U0010', 'U0009', 'U0011', 'C0004'];
/**
 * Every write of a signed-in member: the suspension guard (U0012), the member's own document (C0001 once it is
 * gone), and C0004 when the document keeps changing under the request (compare-and-set retries exhausted).
 */
const MEMBER_WRITE: ErrorCode[] = ['U0012', 'C0001', 'C0004'];

/** The accounts part of the API document, from the schemas the routes validate with. */
export function apiDocument(): ApiDocument {
  const registry = createApiRegistry();
  const op = (spec: OperationSpec) => registerOperation(registry, spec);
  const users = (path: string) => `/api/v1/users${path}`;

  op({
    method: 'post',
    path: users('/sign-up'),
    operationId: 'signUpUser',
    summary: '일반 회원가입',
    description:
      'Needs a successful `check/sms` of `phone_num` and `check/email` of `email` within the last 30 minutes (otherwise 400 U0011, judged after the format, terms and duplicate checks).',
    tags: USERS,
    access: 'public',
    body: userSignUpBody,
    errors: SIGN_UP_ERRORS,
  });
  op({
    method: 'post',
    path: '/api/v1/agents/sign-up',
    operationId: 'signUpAgent',
    summary: '공인중개사 회원가입',
    description:
      'Needs a successful `check/sms` of `phone_num` within the last 30 minutes (otherwise 400 U0011, judged after the format, terms and duplicate checks). `company_email` is the agent’s e-mail.',
    tags: AGENTS,
    access: 'public',
    body: agentSignUpBody,
    errors: SIGN_UP_ERRORS,
  });
  op({
    method: 'post',
    path: users('/sign-in'),
    operationId: 'signIn',
    summary: '로그인',
    description: 'Sets the refresh-token cookie. Five wrong passwords lock the account for 15 minutes (429 C0004 with `Retry-After`).',
    tags: USERS,
    access: 'public',
    body: signInBody,
    data: accessTokenSchema,
    errors: ['U0001', 'U0002', 'U0012', 'C0004'],
    successHeaders: SET_REFRESH_COOKIE,
  });
  op({
    method: 'post',
    path: users('/reissue'),
    operationId: 'reissueTokens',
    summary: '토큰 재발급',
    description: 'Rotates the refresh-token cookie; the body carries the (possibly expired) access token. An Authorization header is ignored here.',
    tags: USERS,
    access: 'public',
    refreshCookie: true,
    ignoresAuthorization: true,
    body: reissueBody,
    data: accessTokenSchema,
    errors: ['J0004'],
    successHeaders: SET_REFRESH_COOKIE,
  });
  op({
    method: 'post',
    path: users('/logout'),
    operationId: 'logout',
    summary: '로그아웃',
    description: "Ends the cookie's session and clears the cookie.",
    tags: USERS,
    access: 'user',
    refreshCookie: true,
    errors: ['U0012'],
    successHeaders: { 'Set-Cookie': { description: '`RefreshToken=; ... Max-Age=0` (cleared)', schema: { type: 'string' } } },
  });
  op({
    method: 'post',
    path: users('/send/sms'),
    operationId: 'sendSmsCode',
    summary: '휴대폰 인증번호 발송',
    tags: USERS,
    access: 'public',
    body: phoneBody,
    errors: ['U0000', 'C0004'],
  });
  op({
    method: 'post',
    path: users('/check/sms'),
    operationId: 'checkSmsCode',
    summary: '휴대폰 인증번호 확인',
    tags: USERS,
    access: 'public',
    body: smsCheckBody,
    data: checkResultSchema,
  });
  op({
    method: 'post',
    path: users('/send/email'),
    operationId: 'sendEmailCode',
    summary: '이메일 인증번호 발송',
    tags: USERS,
    access: 'public',
    body: emailBody,
    errors: ['U0010', 'C0004'],
  });
  op({
    method: 'post',
    path: users('/check/email'),
    operationId: 'checkEmailCode',
    summary: '이메일 인증번호 확인',
    tags: USERS,
    access: 'public',
    body: emailCheckBody,
    data: checkResultSchema,
  });
  op({
    method: 'post',
    path: users('/check/nick-name'),
    operationId: 'checkNickName',
    summary: '닉네임 사용 가능 여부',
    tags: USERS,
    access: 'public',
    body: nickNameBody,
    data: checkResultSchema,
  });
  op({
    method: 'post',
    path: users('/check/user-name'),
    operationId: 'checkUserName',
    summary: '아이디 사용 가능 여부',
    tags: USERS,
    access: 'public',
    body: userNameBody,
    data: checkResultSchema,
  });
  op({
    method: 'post',
    path: users('/check/password'),
    operationId: 'checkPassword',
    summary: '비밀번호 확인',
    tags: USERS,
    access: 'user',
    description: 'Shares the sign-in attempt limit: five wrong passwords lock the account for 15 minutes (429 C0004 with `Retry-After`).',
    body: passwordCheckBody,
    data: checkResultSchema,
    errors: ['U0012', 'C0001', 'C0004'],
  });
  op({
    method: 'get',
    path: users(''),
    operationId: 'getMyProfile',
    summary: '회원 정보 조회',
    tags: USERS,
    access: 'user',
    data: userProfileSchema,
    errors: ['C0001'],
  });
  op({
    method: 'put',
    path: users(''),
    operationId: 'updateMyProfile',
    summary: '회원 정보 수정',
    description:
      'The current password proves the caller (under the sign-in attempt limit: five wrong passwords lock the account for 15 minutes, 429 C0004 with `Retry-After`); a new password ends the other sessions.',
    tags: USERS,
    access: 'user',
    body: profileUpdateBody,
    errors: ['U0002', 'U0005', 'U0006', 'U0000', 'U0011', ...MEMBER_WRITE],
  });
  op({
    method: 'put',
    path: users('/update/nick-name'),
    operationId: 'updateNickName',
    summary: '닉네임 변경',
    tags: USERS,
    access: 'user',
    body: nickNameBody,
    errors: ['U0005', ...MEMBER_WRITE],
  });
  op({
    method: 'put',
    path: users('/update/password'),
    operationId: 'updatePassword',
    summary: '비밀번호 변경',
    description: "Ends every other session (the request's own refresh cookie keeps its session).",
    tags: USERS,
    access: 'user',
    body: newPasswordBody,
    errors: ['U0006', ...MEMBER_WRITE],
  });
  op({
    method: 'put',
    path: users('/update/email'),
    operationId: 'updateEmail',
    summary: '이메일 변경',
    tags: USERS,
    access: 'user',
    body: emailBody,
    errors: ['U0010', 'U0011', ...MEMBER_WRITE],
  });
  op({
    method: 'put',
    path: users('/update/phone'),
    operationId: 'updatePhone',
    summary: '휴대폰 번호 변경',
    tags: USERS,
    access: 'user',
    body: phoneBody,
    errors: ['U0000', 'U0011', ...MEMBER_WRITE],
  });
  op({
    method: 'post',
    path: users('/withdrawal'),
    operationId: 'requestWithdrawal',
    summary: '회원 탈퇴 신청',
    tags: USERS,
    access: 'user',
    body: withdrawalBody,
    errors: ['U0008', ...MEMBER_WRITE],
  });

  op({
    method: 'get',
    path: '/api/v1/admin/users',
    operationId: 'adminListUsers',
    summary: '회원 목록 (관리자)',
    tags: ADMIN_USERS,
    access: 'admin',
    query: adminUserListQuery,
    data: adminUserPageSchema,
  });
  op({
    method: 'put',
    path: '/api/v1/admin/users/{id}/suspension',
    operationId: 'adminSuspendUser',
    summary: '회원 정지 (관리자)',
    description: "Revokes every refresh token of the member; the member's writes answer U0012 in every service.",
    tags: ADMIN_USERS,
    access: 'admin',
    params: adminUserParams,
    body: suspensionBody,
    data: userIdSchema,
    errors: ['C0001', 'C0003', 'C0004'],
  });
  op({
    method: 'delete',
    path: '/api/v1/admin/users/{id}/suspension',
    operationId: 'adminLiftSuspension',
    summary: '회원 정지 해제 (관리자)',
    tags: ADMIN_USERS,
    access: 'admin',
    params: adminUserParams,
    data: userIdSchema,
    errors: ['C0001', 'C0004'],
  });
  op({
    method: 'get',
    path: '/api/v1/admin/withdrawals',
    operationId: 'adminListWithdrawals',
    summary: '탈퇴 신청 목록 (관리자)',
    tags: ADMIN_WITHDRAWALS,
    access: 'admin',
    query: withdrawalListQuery,
    data: withdrawalPageSchema,
  });
  op({
    method: 'put',
    path: '/api/v1/admin/withdrawals/{userId}',
    operationId: 'adminCompleteWithdrawal',
    summary: '탈퇴 처리 (관리자)',
    description: 'Erases the personal data and ends every session.',
    tags: ADMIN_WITHDRAWALS,
    access: 'admin',
    params: withdrawalParams,
    data: userIdSchema,
    errors: ['C0001', 'C0004'],
  });
  op({
    method: 'get',
    path: '/api/v1/admin/stats/users',
    operationId: 'adminUserStats',
    summary: '회원 통계 (관리자)',
    tags: ADMIN_STATS,
    access: 'admin',
    data: userStatsSchema,
  });

  return generateApiDocument(registry, { title: 'binzip accounts', version: '1.0.0' }, fieldLabels);
}
