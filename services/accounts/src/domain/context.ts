import { serviceContext, type Logger, type ServiceContext, type WrittenOutboxDocument } from '@binzip/shared';
import type { AccountsModels } from '../models';
import { PasswordHasher } from './passwords';
import type { MailSender, SmsSender } from './senders';

/** Shown when a user has not set a profile image (DEFAULT_PROFILE_IMAGE_URL overrides it). */
export const DEFAULT_PROFILE_IMAGE_URL = 'https://static.binzip.kr/images/default-profile.png';
export const DEFAULT_BCRYPT_COST = 10;
/**
 * VERIFICATION_CODE_DIGITS: 6 by default; the original site's clients accept exactly 4. With at most
 * MAX_FAILED_CHECKS guesses per code and MAX_SENDS_PER_DAY codes a day per target, a guesser's daily chance
 * is 50 / 10^digits: 1 in 20,000 with 6 digits, 1 in 200 with 4 (decisions-local.md).
 */
export const DEFAULT_CODE_DIGITS = 6;
export const MIN_CODE_DIGITS = 4;
export const MAX_CODE_DIGITS = 8;

/** The access-token key pair: accounts signs tokens (sign-in, reissue) and reads expired ones (reissue). */
export interface SessionKeys {
  privateKey: string;
  publicKey: string;
}

/** Where verification codes leave the system. */
export interface Senders {
  sms: SmsSender;
  mail: MailSender;
}

/**
 * Accounts is where users, passwords and tokens come from, so its use-cases need more than models and a clock:
 * the password hasher (bcrypt cost and queue), the token keys, the code senders and the profile image shown when a user has none.
 */
export interface AccountsContext extends ServiceContext<AccountsModels> {
  passwords: PasswordHasher;
  keys: SessionKeys;
  senders: Senders;
  defaultProfileImageUrl: string;
  /** Digits of a verification code (VERIFICATION_CODE_DIGITS). */
  codeDigits: number;
}

/** What an accounts context is built from; the optional parts have production defaults. */
export interface AccountsContextDeps {
  logger: Logger;
  now?: () => Date;
  eventsPending?: (written?: WrittenOutboxDocument) => void;
  bcryptCost?: number;
  /** bcrypt computations at once (default: every core but one). */
  passwordHashConcurrency?: number;
  /** How long a verified password is remembered (PasswordHasher); default 600 s, 0 turns it off. */
  passwordCheckMemorySeconds?: number;
  keys: SessionKeys;
  senders: Senders;
  defaultProfileImageUrl?: string;
  codeDigits?: number;
}

export function accountsContext(models: AccountsModels, deps: AccountsContextDeps): AccountsContext {
  return {
    ...serviceContext(models, deps),
    passwords: new PasswordHasher(deps.bcryptCost ?? DEFAULT_BCRYPT_COST, deps.passwordHashConcurrency, {
      rememberMs: deps.passwordCheckMemorySeconds === undefined ? undefined : deps.passwordCheckMemorySeconds * 1000,
    }),
    keys: deps.keys,
    senders: deps.senders,
    defaultProfileImageUrl: deps.defaultProfileImageUrl ?? DEFAULT_PROFILE_IMAGE_URL,
    codeDigits: deps.codeDigits ?? DEFAULT_CODE_DIGITS,
  };
}
