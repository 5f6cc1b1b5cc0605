import { currentUser, handle, parseBody, requireUser } from '@binzip/shared';
import { Router, type Response } from 'express';
import type { AccountsContext } from '../domain/context';
import { SignInLockedError } from '../domain/password-attempts';
import { logout, reissue, signIn } from '../domain/sessions';
import { checkPassword, myProfile, updateEmail, updateNickName, updatePassword, updatePhone, updateProfile } from '../domain/profile';
import { signUpUser } from '../domain/sign-up';
import { isNickNameAvailable, isUserNameAvailable } from '../domain/user-lookup';
import { checkEmailCode, checkSmsCode, sendEmailCode, sendSmsCode } from '../domain/verification';
import { requestWithdrawal } from '../domain/withdrawals';
import type { AddressCeilings } from './ceilings';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './cookies';
import {
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
  userSignUpBody,
  withdrawalBody,
} from './schemas';

/** Runs a use-case that judges a password; a lock's remaining time goes out as `Retry-After`. */
async function withRetryAfter<T>(res: Response, run: Promise<T>): Promise<T> {
  return run.catch((err: unknown) => {
    if (err instanceof SignInLockedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
    throw err;
  });
}

/** /api/v1/users: sign-up, sessions, verification codes, the caller's profile and its changes. */
export function userRoutes(ctx: AccountsContext, ceilings: AddressCeilings): Router {
  const router = Router();

  router.post(
    '/sign-up',
    ceilings.signUps,
    handle(async (req) => {
      await signUpUser(ctx, parseBody(req, userSignUpBody));
    }),
  );

  router.post(
    '/sign-in',
    handle(async (req, res) => {
      const session = await withRetryAfter(res, signIn(ctx, parseBody(req, signInBody)));
      setRefreshCookie(res, session.refreshToken);
      return { access_token: session.accessToken };
    }),
  );

  router.post(
    '/reissue',
    handle(async (req, res) => {
      const refreshToken = readRefreshCookie(req);
      const session = await reissue(ctx, { ...parseBody(req, reissueBody), refreshToken });
      setRefreshCookie(res, session.refreshToken);
      return { access_token: session.accessToken };
    }),
  );

  router.post(
    '/logout',
    requireUser,
    handle(async (req, res) => {
      await logout(ctx, currentUser(req), { refreshToken: readRefreshCookie(req) });
      clearRefreshCookie(res);
    }),
  );

  router.post(
    '/send/sms',
    ceilings.codeSends,
    handle(async (req) => {
      await sendSmsCode(ctx, parseBody(req, phoneBody));
    }),
  );

  router.post(
    '/check/sms',
    handle(async (req) => checkSmsCode(ctx, parseBody(req, smsCheckBody))),
  );

  router.post(
    '/send/email',
    ceilings.codeSends,
    handle(async (req) => {
      await sendEmailCode(ctx, parseBody(req, emailBody));
    }),
  );

  router.post(
    '/check/email',
    handle(async (req) => checkEmailCode(ctx, parseBody(req, emailCheckBody))),
  );

  router.post(
    '/check/nick-name',
    handle(async (req) => isNickNameAvailable(ctx, parseBody(req, nickNameBody))),
  );

  router.post(
    '/check/user-name',
    handle(async (req) => isUserNameAvailable(ctx, parseBody(req, userNameBody))),
  );

  router.post(
    '/check/password',
    requireUser,
    handle(async (req, res) => withRetryAfter(res, checkPassword(ctx, currentUser(req), parseBody(req, passwordCheckBody)))),
  );

  router.get(
    '/',
    requireUser,
    handle(async (req) => myProfile(ctx, currentUser(req))),
  );

  router.put(
    '/',
    requireUser,
    handle(async (req, res) => {
      await withRetryAfter(res, updateProfile(ctx, currentUser(req), { ...parseBody(req, profileUpdateBody), refreshToken: readRefreshCookie(req) }));
    }),
  );

  router.put(
    '/update/nick-name',
    requireUser,
    handle(async (req) => {
      await updateNickName(ctx, currentUser(req), parseBody(req, nickNameBody));
    }),
  );

  router.put(
    '/update/password',
    requireUser,
    handle(async (req) => {
      await updatePassword(ctx, currentUser(req), { ...parseBody(req, newPasswordBody), refreshToken: readRefreshCookie(req) });
    }),
  );

  router.put(
    '/update/email',
    requireUser,
    handle(async (req) => {
      await updateEmail(ctx, currentUser(req), parseBody(req, emailBody));
    }),
  );

  router.put(
    '/update/phone',
    requireUser,
    handle(async (req) => {
      await updatePhone(ctx, currentUser(req), parseBody(req, phoneBody));
    }),
  );

  router.post(
    '/withdrawal',
    requireUser,
    handle(async (req) => {
      await requestWithdrawal(ctx, currentUser(req), parseBody(req, withdrawalBody));
    }),
  );

  return router;
}
