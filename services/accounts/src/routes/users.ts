import { operationsOf, type ErrorCode } from '@binzip/shared';
import type { AccountsContext } from '../domain/context';
import { checkPassword, myProfile, updateEmail, updateNickName, updatePassword, updatePhone, updateProfile } from '../domain/profile';
import { logout, reissue, signIn } from '../domain/sessions';
import { signUpUser } from '../domain/sign-up';
import { isNickNameAvailable, isUserNameAvailable } from '../domain/user-lookup';
import { checkEmailCode, checkSmsCode, sendEmailCode, sendSmsCode } from '../domain/verification';
import { requestWithdrawal } from '../domain/withdrawals';
import { CLEARS_REFRESH_COOKIE, SETS_REFRESH_COOKIE, clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './cookies';
import {
  accessTokenSchema,
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
  userNameBody,
  userProfileSchema,
  userSignUpBody,
  withdrawalBody,
} from './schemas';
import { announceEmailAlias, signInHeaders } from './sign-in-alias';

const operation = operationsOf<AccountsContext>();
const tags = ['users'];

/** A sign-up's clashes in decisions.md's order, its mandatory terms and the missing verification of its contacts (U0011). */
export const SIGN_UP_ERRORS: ErrorCode[] = ['U0007', 'U0005', 'U0000', 'U0010', 'U0009', 'U0011'];
/**
 * Every write to a signed-in member's own document: C0001 once it is gone, and C0004 when it keeps changing
 * under the request (compare-and-set retries exhausted).
 */
const MEMBER_WRITE: ErrorCode[] = ['C0001', 'C0004'];

/** /api/v1/users: sign-up, sessions, verification codes, the caller's profile and its changes. */
export const userOperations = [
  operation({
    method: 'post',
    path: '/api/v1/users/sign-up',
    operationId: 'signUpUser',
    summary: '일반 회원가입',
    description:
      'Needs a successful `check/sms` of `phone_num` and `check/email` of `email` within the last 30 minutes (otherwise 400 U0011, judged after the format, terms and duplicate checks).',
    tags,
    access: 'public',
    ceiling: 'sign-ups',
    body: userSignUpBody,
    errors: SIGN_UP_ERRORS,
    handle: async (ctx, { body }) => {
      await signUpUser(ctx, body);
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/sign-in',
    operationId: 'signIn',
    summary: '로그인',
    description:
      'Sets the refresh-token cookie. The login id may come as the former field `email` when `userName` is absent (deprecated: the answer then carries `Deprecation` and `Sunset`; both fields at once is C0002). Five wrong passwords lock the account for 15 minutes (429 C0004 with `Retry-After`).',
    tags,
    access: 'public',
    body: signInBody,
    data: accessTokenSchema,
    // U0012: a suspended member cannot sign in; C0004: the lock after five wrong passwords.
    errors: ['U0001', 'U0002', 'U0012', 'C0004'],
    successHeaders: signInHeaders(SETS_REFRESH_COOKIE),
    handle: async (ctx, { body, res }) => {
      // The former name of the login id, `email`, when `userName` is absent (the schema allows one, never both).
      const userName = body.userName ?? body.email ?? '';
      const session = await signIn(ctx, { userName, password: body.password });
      if (body.userName === undefined) announceEmailAlias(res);
      setRefreshCookie(res, session.refreshToken);
      return { access_token: session.accessToken };
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/reissue',
    operationId: 'reissueTokens',
    summary: '토큰 재발급',
    description: 'Rotates the refresh-token cookie; the body carries the (possibly expired) access token. An Authorization header is ignored here.',
    tags,
    access: 'public',
    refreshCookie: true,
    ignoresAuthorization: true,
    body: reissueBody,
    data: accessTokenSchema,
    errors: ['J0004'],
    successHeaders: SETS_REFRESH_COOKIE,
    handle: async (ctx, { body, req, res }) => {
      const session = await reissue(ctx, { ...body, refreshToken: readRefreshCookie(req) });
      setRefreshCookie(res, session.refreshToken);
      return { access_token: session.accessToken };
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/logout',
    operationId: 'logout',
    summary: '로그아웃',
    description: "Ends the cookie's session and clears the cookie.",
    tags,
    access: 'user',
    refreshCookie: true,
    successHeaders: CLEARS_REFRESH_COOKIE,
    handle: async (ctx, { caller, req, res }) => {
      await logout(ctx, caller, { refreshToken: readRefreshCookie(req) });
      clearRefreshCookie(res);
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/send/sms',
    operationId: 'sendSmsCode',
    summary: '휴대폰 인증번호 발송',
    tags,
    access: 'public',
    ceiling: 'code-sends',
    body: phoneBody,
    errors: ['U0000'],
    handle: async (ctx, { body }) => {
      await sendSmsCode(ctx, body);
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/check/sms',
    operationId: 'checkSmsCode',
    summary: '휴대폰 인증번호 확인',
    tags,
    access: 'public',
    body: smsCheckBody,
    data: checkResultSchema,
    handle: (ctx, { body }) => checkSmsCode(ctx, body),
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/send/email',
    operationId: 'sendEmailCode',
    summary: '이메일 인증번호 발송',
    tags,
    access: 'public',
    ceiling: 'code-sends',
    body: emailBody,
    errors: ['U0010'],
    handle: async (ctx, { body }) => {
      await sendEmailCode(ctx, body);
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/check/email',
    operationId: 'checkEmailCode',
    summary: '이메일 인증번호 확인',
    tags,
    access: 'public',
    body: emailCheckBody,
    data: checkResultSchema,
    handle: (ctx, { body }) => checkEmailCode(ctx, body),
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/check/nick-name',
    operationId: 'checkNickName',
    summary: '닉네임 사용 가능 여부',
    tags,
    access: 'public',
    body: nickNameBody,
    data: checkResultSchema,
    handle: (ctx, { body }) => isNickNameAvailable(ctx, body),
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/check/user-name',
    operationId: 'checkUserName',
    summary: '아이디 사용 가능 여부',
    tags,
    access: 'public',
    body: userNameBody,
    data: checkResultSchema,
    handle: (ctx, { body }) => isUserNameAvailable(ctx, body),
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/check/password',
    operationId: 'checkPassword',
    summary: '비밀번호 확인',
    description: 'Shares the sign-in attempt limit: five wrong passwords lock the account for 15 minutes (429 C0004 with `Retry-After`).',
    tags,
    access: 'user',
    body: passwordCheckBody,
    data: checkResultSchema,
    errors: ['C0001', 'C0004'],
    handle: (ctx, { caller, body }) => checkPassword(ctx, caller, body),
  }),
  operation({
    method: 'get',
    path: '/api/v1/users',
    operationId: 'getMyProfile',
    summary: '회원 정보 조회',
    tags,
    access: 'user',
    data: userProfileSchema,
    errors: ['C0001'],
    handle: (ctx, { caller }) => myProfile(ctx, caller),
  }),
  operation({
    method: 'put',
    path: '/api/v1/users',
    operationId: 'updateMyProfile',
    summary: '회원 정보 수정',
    description:
      'The current password proves the caller (under the sign-in attempt limit: five wrong passwords lock the account for 15 minutes, 429 C0004 with `Retry-After`); a new password ends the other sessions.',
    tags,
    access: 'user',
    body: profileUpdateBody,
    errors: ['U0002', 'U0005', 'U0006', 'U0000', 'U0011', ...MEMBER_WRITE],
    handle: async (ctx, { caller, body, req }) => {
      await updateProfile(ctx, caller, { ...body, refreshToken: readRefreshCookie(req) });
    },
  }),
  operation({
    method: 'put',
    path: '/api/v1/users/update/nick-name',
    operationId: 'updateNickName',
    summary: '닉네임 변경',
    tags,
    access: 'user',
    body: nickNameBody,
    errors: ['U0005', ...MEMBER_WRITE],
    handle: async (ctx, { caller, body }) => {
      await updateNickName(ctx, caller, body);
    },
  }),
  operation({
    method: 'put',
    path: '/api/v1/users/update/password',
    operationId: 'updatePassword',
    summary: '비밀번호 변경',
    description: "Ends every other session (the request's own refresh cookie keeps its session).",
    tags,
    access: 'user',
    body: newPasswordBody,
    errors: ['U0006', ...MEMBER_WRITE],
    handle: async (ctx, { caller, body, req }) => {
      await updatePassword(ctx, caller, { ...body, refreshToken: readRefreshCookie(req) });
    },
  }),
  operation({
    method: 'put',
    path: '/api/v1/users/update/email',
    operationId: 'updateEmail',
    summary: '이메일 변경',
    tags,
    access: 'user',
    body: emailBody,
    errors: ['U0010', 'U0011', ...MEMBER_WRITE],
    handle: async (ctx, { caller, body }) => {
      await updateEmail(ctx, caller, body);
    },
  }),
  operation({
    method: 'put',
    path: '/api/v1/users/update/phone',
    operationId: 'updatePhone',
    summary: '휴대폰 번호 변경',
    tags,
    access: 'user',
    body: phoneBody,
    errors: ['U0000', 'U0011', ...MEMBER_WRITE],
    handle: async (ctx, { caller, body }) => {
      await updatePhone(ctx, caller, body);
    },
  }),
  operation({
    method: 'post',
    path: '/api/v1/users/withdrawal',
    operationId: 'requestWithdrawal',
    summary: '회원 탈퇴 신청',
    tags,
    access: 'user',
    body: withdrawalBody,
    errors: ['U0008', ...MEMBER_WRITE],
    handle: async (ctx, { caller, body }) => {
      await requestWithdrawal(ctx, caller, body);
    },
  }),
];
