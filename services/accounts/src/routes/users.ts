import { currentUser, handle, parseBody, requireUser } from '@binzip/shared';
import { Router } from 'express';
import type { DomainContext } from '../domain/context';
import {
  agentSignUpBody,
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
} from '../domain/inputs';
import { logout, reissue, signIn, SignInLockedError, type SessionKeys } from '../domain/sessions';
import * as users from '../domain/users';
import { checkEmailCode, checkSmsCode, sendEmailCode, sendSmsCode, type Senders } from '../domain/verification';
import type { Logger } from '@binzip/shared';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './cookies';

export interface UserRoutesDeps {
  ctx: DomainContext;
  keys: SessionKeys;
  senders: Senders;
  logger: Logger;
  defaultProfileImageUrl: string;
}

export function userRoutes({ ctx, keys, senders, logger, defaultProfileImageUrl }: UserRoutesDeps): Router {
  const router = Router();

  router.post(
    '/sign-up',
    handle(async (req) => {
      await users.signUpUser(ctx, parseBody(req, userSignUpBody));
    }),
  );

  router.post(
    '/sign-in',
    handle(async (req, res) => {
      const { userName, password } = parseBody(req, signInBody);
      const session = await signIn(ctx, keys, userName, password).catch((err: unknown) => {
        if (err instanceof SignInLockedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
        throw err;
      });
      setRefreshCookie(res, session.refreshToken);
      return { access_token: session.accessToken };
    }),
  );

  router.post(
    '/reissue',
    handle(async (req, res) => {
      const refreshToken = readRefreshCookie(req);
      const { access_token } = parseBody(req, reissueBody);
      const session = await reissue(ctx, keys, refreshToken, access_token);
      setRefreshCookie(res, session.refreshToken);
      return { access_token: session.accessToken };
    }),
  );

  router.post(
    '/logout',
    requireUser,
    handle(async (req, res) => {
      await logout(ctx, currentUser(req).userId, readRefreshCookie(req));
      clearRefreshCookie(res);
    }),
  );

  router.post(
    '/send/sms',
    handle(async (req) => {
      await sendSmsCode(ctx, senders, logger, parseBody(req, phoneBody).phone_num);
    }),
  );

  router.post(
    '/check/sms',
    handle(async (req) => {
      const { phone_num, code } = parseBody(req, smsCheckBody);
      return checkSmsCode(ctx, phone_num, code);
    }),
  );

  router.post(
    '/send/email',
    handle(async (req) => {
      await sendEmailCode(ctx, senders, logger, parseBody(req, emailBody).email);
    }),
  );

  router.post(
    '/check/email',
    handle(async (req) => {
      const { email, code } = parseBody(req, emailCheckBody);
      return checkEmailCode(ctx, email, code);
    }),
  );

  router.post(
    '/check/nick-name',
    handle(async (req) => users.isNickNameAvailable(ctx, parseBody(req, nickNameBody).nick_name)),
  );

  router.post(
    '/check/user-name',
    handle(async (req) => users.isUserNameAvailable(ctx, parseBody(req, userNameBody).userName)),
  );

  router.post(
    '/check/password',
    requireUser,
    handle(async (req) => users.checkPassword(ctx, currentUser(req).userId, parseBody(req, passwordCheckBody).password)),
  );

  router.get(
    '/',
    requireUser,
    handle(async (req) => users.renderUser(await users.findUser(ctx, currentUser(req).userId), defaultProfileImageUrl)),
  );

  router.put(
    '/',
    requireUser,
    handle(async (req) => {
      await users.updateProfile(ctx, currentUser(req).userId, parseBody(req, profileUpdateBody), readRefreshCookie(req));
    }),
  );

  router.put(
    '/update/nick-name',
    requireUser,
    handle(async (req) => {
      await users.updateNickName(ctx, currentUser(req).userId, parseBody(req, nickNameBody).nick_name);
    }),
  );

  router.put(
    '/update/password',
    requireUser,
    handle(async (req) => {
      await users.updatePassword(ctx, currentUser(req).userId, parseBody(req, newPasswordBody).password, readRefreshCookie(req));
    }),
  );

  router.put(
    '/update/email',
    requireUser,
    handle(async (req) => {
      await users.updateEmail(ctx, currentUser(req).userId, parseBody(req, emailBody).email);
    }),
  );

  router.put(
    '/update/phone',
    requireUser,
    handle(async (req) => {
      await users.updatePhone(ctx, currentUser(req).userId, parseBody(req, phoneBody).phone_num);
    }),
  );

  router.post(
    '/withdrawal',
    requireUser,
    handle(async (req) => {
      await users.requestWithdrawal(ctx, currentUser(req).userId, parseBody(req, withdrawalBody));
    }),
  );

  return router;
}

export function agentRoutes(ctx: DomainContext): Router {
  const router = Router();
  router.post(
    '/sign-up',
    handle(async (req) => {
      await users.signUpAgent(ctx, parseBody(req, agentSignUpBody));
    }),
  );
  return router;
}
