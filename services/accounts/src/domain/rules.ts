import { FormatMessages, typedPhone } from '@binzip/shared';
import { z } from 'zod';

/**
 * Field formats from decisions.md ("Accounts"). They are the domain's, not only the requests': sign-up bodies
 * (routes/schemas.ts) are built from them, and `createAdministrator` applies them to what the admin CLI and
 * ADMIN_BOOTSTRAP give it. Every string is length-bounded before its pattern runs, so a 100k-character value
 * is rejected cheaply and with the same message as any other bad value.
 */
export const USER_NAME = /^(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{4,20}$/;
export const PASSWORD = /^(?=.*[A-Za-z])(?=.*\d)(?=.*[!@#$%^&*.?])[A-Za-z\d!@#$%^&*.?]{8,16}$/;
export const NICK_NAME = /^[A-Za-z0-9\uac00-\ud7a3]{1,20}$/;
export const PHONE = /^01[016789]\d{7,8}$/;
/** Any length VERIFICATION_CODE_DIGITS may choose (4 to 8); the check refuses other lengths than the configured one (C0002). */
export const CODE = /^\d{4,8}$/;
/** Seoul 02 and regional 0XX landlines, mobiles, 070, and the 8-digit 15XX/16XX/18XX representative numbers. */
export const COMPANY_PHONE = /^(0\d{8,10}|1[568]\d{6})$/;

const formatted = (pattern: RegExp, message: string, max: number) => z.string().max(max, { message }).regex(pattern, { message });

export const userNameField = z.string().max(20).regex(USER_NAME);
export const passwordField = formatted(PASSWORD, FormatMessages.password, 16);
export const nickNameField = formatted(NICK_NAME, FormatMessages.nickName, 20);
/** Digits only as stored and answered; typed with hyphens or spaces it is read as its digits (`typedPhone`). */
export const phoneField = typedPhone(formatted(PHONE, FormatMessages.phone, 11));
export const codeField = formatted(CODE, FormatMessages.code, 8);
/**
 * Addresses are kept in lower case: `A@B.co` and `a@b.co` reach the same mailbox in practice, so they must
 * clash on uniqueness (U0010) and share one verification code and send log.
 */
export const emailField = z
  .string()
  .max(254)
  .pipe(z.email())
  .transform((email) => email.toLowerCase());

/** Sign-up sends Korean labels; reads return the code word. */
export const AGE_CODES = {
  '20대 미만': 'TEN',
  '20대': 'TWENTY',
  '30대': 'THIRTY',
  '40대': 'FORTY',
  '50대': 'FIFTY',
  '60대 이상': 'SIXTY',
} as const;

export const JOIN_PATH_CODES = {
  '지인 소개': 'FRIEND',
  '네이버 카페': 'NAVER_CAFE',
  '네이버 블로그': 'NAVER_BLOG',
  '네이버 밴드': 'NAVER_BAND',
  페이스북: 'FACEBOOK',
  인스타그램: 'INSTAGRAM',
  검색: 'SEARCH',
  기타: 'ETC',
} as const;

export const ESTATE_CODES = { 아파트: 'APARTMENT', 주택: 'HOUSE', 농가: 'FARMHOUSE' } as const;

export const TERMS = ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI', 'PERSONAL_INFO_USED_AGREE', 'MARKETING_ADVERTISEMENT_AGREE'] as const;
export type Term = (typeof TERMS)[number];
export const MANDATORY_TERMS = {
  user: ['SERVICE_USED_AGREE'],
  agent: ['SERVICE_USED_AGREE', 'PERSONAL_INFO_NOTI'],
} as const satisfies Record<string, readonly Term[]>;

export const WITHDRAWAL_REASONS = {
  '이용빈도 낮음': 'ROW_USE',
  재가입: 'RE_JOIN',
  '콘텐츠 및 정보 부족': 'INSUFFICIENT_CONTENT',
  '개인 정보 보호': 'PERSONAL_PROTECTION',
  기타: 'ETC',
} as const;

export type AgeCode = (typeof AGE_CODES)[keyof typeof AGE_CODES];
export type JoinPathCode = (typeof JOIN_PATH_CODES)[keyof typeof JOIN_PATH_CODES];
export type EstateCode = (typeof ESTATE_CODES)[keyof typeof ESTATE_CODES];
export type WithdrawalReason = (typeof WITHDRAWAL_REASONS)[keyof typeof WITHDRAWAL_REASONS];

/** An administrator as the admin CLI and ADMIN_BOOTSTRAP describe one: the sign-up formats, a team type. */
export const administratorInput = z.strictObject({
  userName: userNameField,
  password: passwordField,
  nick_name: nickNameField,
  phone_num: phoneField,
  email: emailField,
  userType: z.enum(['WEB', 'SERVER']),
});
export type AdministratorInput = z.output<typeof administratorInput>;
