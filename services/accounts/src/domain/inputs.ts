import { z } from 'zod';
import {
  AGE_CODES,
  COMPANY_PHONE,
  ESTATE_CODES,
  JOIN_PATH_CODES,
  TERMS,
  WITHDRAWAL_REASONS,
  codeField,
  emailField,
  labelField,
  labelList,
  nickNameField,
  passwordField,
  phoneField,
  userNameField,
} from './rules';

/** Request bodies. Strict objects: an unknown field is C0002 naming it. */

const text = (max: number) => z.string().trim().min(1).max(max);

const userSignUpShape = {
  userName: userNameField,
  password: passwordField,
  nick_name: nickNameField,
  phone_num: phoneField,
  age: labelField(AGE_CODES),
  join_paths: labelList(JOIN_PATH_CODES),
  terms: z
    .array(z.enum(TERMS))
    .max(TERMS.length * 2)
    .transform((terms) => [...new Set(terms)]),
  email: emailField,
};

export const userSignUpBody = z.strictObject(userSignUpShape);
export type UserSignUp = z.output<typeof userSignUpBody>;

const registrationNumber = z
  .string()
  .max(14)
  .regex(/^(\d{10}|\d{14})$/);

export const agentSignUpBody = z
  .strictObject({
    ...userSignUpShape,
    agent_code: registrationNumber,
    business_code: registrationNumber,
    company_name: text(100),
    agent_name: text(50),
    company_phone_num: z.string().max(11).regex(COMPANY_PHONE),
    assistant_name: text(50)
      .nullable()
      .optional()
      .transform((v) => v ?? null),
    company_address: text(200),
    company_address_detail: z.string().trim().max(200),
    company_email: emailField,
    estate: labelField(ESTATE_CODES),
  })
  // The spec's table and sample disagree on which code is 14 digits long, so either pairing is accepted.
  .refine((body) => body.agent_code.length !== body.business_code.length, { path: ['business_code'], message: 'business_code' });
export type AgentSignUp = z.output<typeof agentSignUpBody>;

export const adminInput = z.strictObject({
  userName: userNameField,
  password: passwordField,
  nick_name: nickNameField,
  phone_num: phoneField,
  email: emailField,
  userType: z.enum(['WEB', 'SERVER']),
});
export type AdminInput = z.output<typeof adminInput>;

/** Sign-in checks credentials, not formats: any bounded text, unknown user names are U0001. */
export const signInBody = z.strictObject({ userName: z.string().min(1).max(100), password: z.string().min(1).max(100) });

export const reissueBody = z.strictObject({ access_token: z.string().min(1).max(4096) });

export const phoneBody = z.strictObject({ phone_num: phoneField });
export const smsCheckBody = z.strictObject({ phone_num: phoneField, code: codeField });
export const emailBody = z.strictObject({ email: emailField });
export const emailCheckBody = z.strictObject({ email: emailField, code: codeField });
export const nickNameBody = z.strictObject({ nick_name: nickNameField });
export const userNameBody = z.strictObject({ userName: userNameField });
export const passwordCheckBody = z.strictObject({ password: z.string().max(100) });
export const newPasswordBody = z.strictObject({ password: passwordField });

const optionalChange = <S extends z.ZodType>(schema: S) =>
  schema
    .nullable()
    .optional()
    .transform((v) => v ?? undefined);

export const profileUpdateBody = z.strictObject({
  password: z.string().min(1).max(100),
  nick_name: optionalChange(nickNameField),
  new_password: optionalChange(passwordField),
  phone_num: optionalChange(phoneField),
});
export type ProfileUpdate = z.output<typeof profileUpdateBody>;

export const withdrawalBody = z.strictObject({
  reason: labelList(WITHDRAWAL_REASONS),
  content: z
    .string()
    .max(1000)
    .nullable()
    .optional()
    .transform((v) => v ?? ''),
});
export type WithdrawalInput = z.output<typeof withdrawalBody>;
