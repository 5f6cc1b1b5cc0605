import {
  absentQueryValue,
  AuditTargetTypes,
  AUDIT_ACTION_PATTERN,
  Authorities,
  idParams,
  isoTimestampSchema,
  pageQuery,
  pageSchema,
  queryEnum,
  querySort,
  queryText,
  typedPhone,
  UserStatuses,
  UserTypes,
  type FieldLabels,
} from '@binzip/shared';
import { z } from 'zod';
import {
  AGE_CODES,
  codeField,
  COMPANY_PHONE,
  emailField,
  ESTATE_CODES,
  JOIN_PATH_CODES,
  nickNameField,
  passwordField,
  phoneField,
  TERMS,
  userNameField,
  WITHDRAWAL_REASONS,
} from '../domain/rules';
import type { AdminUserItem } from '../domain/admin-members';
import type { AuditItem } from '../domain/audit';
import type { UserStats } from '../domain/admin-stats';
import type { AccessTokenAnswer } from '../domain/sessions';
import type { ProfileUpdate, UserProfile } from '../domain/profile';
import type { AgentSignUp, UserSignUp } from '../domain/sign-up';
import type { WithdrawalItem, WithdrawalRequest } from '../domain/withdrawals';

/** Korean names of the request fields: C0002 messages and the API document use them (shared `FieldLabels`). */
export const fieldLabels: FieldLabels = {
  actor: '처리자',
  action: '처리',
  targetType: '대상 종류',
  targetId: '대상 번호',
  memberId: '회원 번호',
  from: '시작일',
  to: '종료일',
  sort: '정렬',
  userName: '아이디',
  password: '비밀번호',
  new_password: '새 비밀번호',
  nick_name: '닉네임',
  phone_num: '전화번호',
  age: '연령대',
  join_paths: '가입 경로',
  terms: '약관 동의',
  email: '이메일',
  code: '인증번호',
  access_token: '액세스 토큰',
  reason: '사유',
  content: '내용',
  agent_code: '중개사무소 등록번호',
  business_code: '사업자 등록번호',
  company_name: '중개사무소 이름',
  agent_name: '대표자 이름',
  company_phone_num: '사무소 전화번호',
  assistant_name: '중개보조원 이름',
  company_address: '사무소 주소',
  company_address_detail: '사무소 상세 주소',
  company_email: '회사 이메일',
  estate: '중개 분야',
  page: '페이지',
  size: '페이지 크기',
  search: '검색어',
  userType: '회원 유형',
  status: '상태',
  id: '회원 번호',
  userId: '회원 번호',
};

// Requests. Bodies are strict objects: an unknown field is C0002 naming it.

/** A label field: the Korean text in, the stored code word out; any other text is C0002 naming the field. */
export function labelField<const M extends Record<string, string>>(map: M) {
  // zod's default enum message lists the (Korean) options, which the shared C0002 rendering would pass
  // through verbatim; a plain message makes it name the field instead.
  return z.enum(Object.keys(map) as [keyof M & string, ...(keyof M & string)[]], { error: 'unknown label' }).transform((label) => map[label] as M[keyof M]);
}

export function labelList<const M extends Record<string, string>>(map: M) {
  return z
    .array(labelField(map))
    .max(Object.keys(map).length * 2)
    .transform((codes) => [...new Set(codes)]);
}

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

export const userSignUpBody = z.strictObject(userSignUpShape) satisfies z.ZodType<UserSignUp>;

const registrationNumber = z
  .string()
  .max(14)
  .regex(/^(\d{10}|\d{14})$/);

/** The contract's agent body has no `email`: `company_email` is the agent's e-mail (profile, uniqueness). */
const { email: _memberEmail, ...agentMemberShape } = userSignUpShape;

export const agentSignUpBody = z
  .strictObject({
    ...agentMemberShape,
    agent_code: registrationNumber,
    business_code: registrationNumber,
    company_name: text(100),
    agent_name: text(50),
    company_phone_num: typedPhone(z.string().max(11).regex(COMPANY_PHONE)),
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
  .refine((body) => body.agent_code.length !== body.business_code.length, {
    path: ['business_code'],
    message: 'business_code',
  }) satisfies z.ZodType<AgentSignUp>;

const signInName = z.string().min(1).max(100);

/**
 * Sign-in checks credentials, not formats: any bounded text, unknown user names are U0001. The login id is
 * `userName`, or under its former name `email` (the original back office; deprecated, see sign-in-alias.ts):
 * one of the two, never both.
 */
export const signInBody = z
  .strictObject({
    userName: signInName.optional(),
    email: signInName.optional().meta({
      deprecated: true,
      description: '아이디의 예전 이름 (원래 백오피스): userName이 없을 때만 아이디로 읽음. 둘 다 보내면 C0002. 응답에 Deprecation/Sunset 헤더',
    }),
    password: z.string().min(1).max(100),
  })
  .superRefine((body, context) => {
    if (body.userName !== undefined && body.email !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['email'],
        message: `${fieldLabels.userName}와 ${fieldLabels.email}(아이디의 예전 이름)은 함께 보낼 수 없습니다.`,
      });
    } else if (body.userName === undefined && body.email === undefined) {
      context.addIssue({ code: 'custom', path: ['userName'], message: `${fieldLabels.userName} 값이 누락되었습니다.` });
    }
  });

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
}) satisfies z.ZodType<ProfileUpdate>;

export const withdrawalBody = z.strictObject({
  reason: labelList(WITHDRAWAL_REASONS),
  content: z
    .string()
    .max(1000)
    .nullable()
    .optional()
    .transform((v) => v ?? ''),
}) satisfies z.ZodType<WithdrawalRequest>;

/** Admin lists page like the rest, with backoffice.md's default and maximum size. */
const adminPage = pageQuery(20, 100);

/** Members newest first unless sorted otherwise (issue 40: by join date, or by how many reports they had). */
export const adminUserListQuery = z.object({
  ...adminPage,
  search: queryText(100),
  userType: queryEnum(UserTypes),
  status: queryEnum(UserStatuses),
  sort: querySort(['createdAt', 'reportCount'], { field: 'createdAt', direction: -1 }),
});
/** The withdrawal queue, oldest request first unless sorted otherwise; filtered by member type and name (issue 40). */
export const withdrawalListQuery = z.object({
  ...adminPage,
  search: queryText(100).meta({ description: '아이디 또는 닉네임의 일부' }),
  userType: queryEnum(UserTypes),
  sort: querySort(['requestedAt'], { field: 'requestedAt', direction: 1 }),
});

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * `from`/`to` of the audit list: an ISO date (a whole day in Asia/Seoul, the site's time zone: `from` its first
 * moment, `to` its last) or an ISO date-time with its offset. Anything else is C0002 naming the field.
 */
function queryInstant(edge: 'start' | 'end') {
  return z
    .preprocess(
      absentQueryValue,
      z
        .string()
        .refine((v) => (DATE_ONLY.test(v) || DATE_TIME.test(v)) && !Number.isNaN(Date.parse(DATE_ONLY.test(v) ? `${v}T00:00:00+09:00` : v)))
        .transform((v) => {
          if (!DATE_ONLY.test(v)) return new Date(v);
          return new Date(edge === 'start' ? `${v}T00:00:00.000+09:00` : `${v}T23:59:59.999+09:00`);
        })
        .optional(),
    )
    .meta({ type: 'string', description: 'ISO 날짜 (YYYY-MM-DD, 한국 시간의 하루) 또는 오프셋이 있는 ISO 날짜시각' });
}

const optionalId = (description: string) =>
  z
    .preprocess(
      absentQueryValue,
      z
        .string()
        .regex(/^\d{1,15}$/)
        .transform(Number)
        .pipe(z.number().int().positive())
        .optional(),
    )
    .meta({ type: 'integer', minimum: 1, description });

/** GET /api/v1/admin/audit (issue 40): every filter is optional and they combine with AND. */
export const auditListQuery = z.object({
  actor: queryText(40).meta({ description: '처리한 관리자의 id(숫자) 또는 그때의 아이디' }),
  action: z.preprocess(absentQueryValue, z.string().regex(AUDIT_ACTION_PATTERN).optional()).meta({
    type: 'string',
    description: '대문자 동사: APPROVE, REJECT, SUSPEND, LIFT_SUSPENSION, COMPLETE_WITHDRAWAL, DELETE, DELETE_COMMENT, PIN, UNPIN, DISMISS, REMOVE',
  }),
  targetType: queryEnum(AuditTargetTypes),
  targetId: optionalId('대상의 id'),
  memberId: optionalId('처리가 관련된 회원 (정지된 회원, 게시글 작성자): 회원 페이지의 기록'),
  from: queryInstant('start'),
  to: queryInstant('end'),
  ...adminPage,
});
export const suspensionBody = z.strictObject({ reason: z.string().trim().min(1).max(200) });
export const adminUserParams = idParams('id');
export const withdrawalParams = idParams('userId');

// Responses (`satisfies` keeps them in step with what the domain returns)

const codeWords = <M extends Record<string, string>>(map: M) => z.enum(Object.values(map) as [M[keyof M], ...M[keyof M][]]);

export const accessTokenSchema = z
  .object({ access_token: z.string().meta({ description: '`Bearer <jwt>`: the Authorization header value (30 minutes)' }) })
  .meta({ id: 'AccountsAccessToken' }) satisfies z.ZodType<AccessTokenAnswer>;

/** The answer of the check endpoints: a code matched, a name is free, the password is right. */
export const checkResultSchema = z.boolean();

export const userProfileSchema = z
  .object({
    id: z.number().int(),
    userName: z.string(),
    nick_name: z.string(),
    phone_num: z.string(),
    authority: z.enum(Authorities),
    age: codeWords(AGE_CODES).nullable(),
    profile_image_url: z.string(),
    userType: z.enum(UserTypes),
    email: z.string(),
    suspenseReason: z.string().nullable(),
    reportedAt: isoTimestampSchema.nullable(),
    agentCode: z.string().nullable(),
    companyName: z.string().nullable(),
    companyAddress: z.string().nullable(),
    companyPhoneNum: z.string().nullable(),
    agentName: z.string().nullable(),
    assistantName: z.string().nullable(),
  })
  .meta({ id: 'AccountsUserProfile' }) satisfies z.ZodType<UserProfile>;

export const adminUserItemSchema = z
  .object({
    id: z.number().int(),
    userName: z.string(),
    nickName: z.string(),
    email: z.string(),
    phoneNum: z.string(),
    userType: z.enum(UserTypes),
    authority: z.enum(Authorities),
    status: z.enum(UserStatuses),
    createdAt: isoTimestampSchema,
    suspenseReason: z.string().nullable(),
    reportedAt: isoTimestampSchema.nullable(),
    reportCount: z.number().int().min(0),
  })
  .meta({ id: 'AccountsAdminUserItem' }) satisfies z.ZodType<AdminUserItem>;

export const adminUserPageSchema = pageSchema(adminUserItemSchema, { totals: true, pageable: false }).meta({ id: 'AccountsAdminUserPage' });

export const withdrawalItemSchema = z
  .object({
    userId: z.number().int(),
    userName: z.string(),
    nickName: z.string(),
    userType: z.enum(UserTypes),
    reasons: z.array(z.string()).meta({ description: '탈퇴 사유 (한국어 문구)' }),
    content: z.string(),
    requestedAt: isoTimestampSchema,
  })
  .meta({ id: 'AccountsWithdrawalItem' }) satisfies z.ZodType<WithdrawalItem>;

export const auditItemSchema = z
  .object({
    id: z.string().meta({ description: '기록 id (그 처리를 알린 이벤트의 id)' }),
    actor: z.object({ id: z.number().int(), userName: z.string().meta({ description: '처리 당시의 아이디' }) }),
    action: z.string().meta({ description: '대문자 동사 (APPROVE, REJECT, SUSPEND, ...)' }),
    targetType: z.enum(AuditTargetTypes),
    targetId: z.number().int(),
    reason: z.string().nullable(),
    at: isoTimestampSchema,
    requestId: z.string().nullable().meta({ description: '처리한 요청의 x-request-id (접근 로그와 같은 값)' }),
    service: z.enum(['accounts', 'community', 'houses', 'records']),
    memberId: z.number().int().nullable(),
  })
  .meta({ id: 'AuditEntry' }) satisfies z.ZodType<AuditItem>;

export const auditPageSchema = pageSchema(auditItemSchema, { totals: true, pageable: false }).meta({ id: 'AuditEntryPage' });

export const withdrawalPageSchema = pageSchema(withdrawalItemSchema, { totals: true, pageable: false }).meta({ id: 'AccountsWithdrawalPage' });

const count = z.number().int().min(0);

export const userStatsSchema = z
  .object({
    total: count,
    byUserType: z.object({ NONE: count, AGENT: count, WEB: count, SERVER: count }),
    byAge: z.object({ TEN: count, TWENTY: count, THIRTY: count, FORTY: count, FIFTY: count, SIXTY: count }),
    byJoinPath: z.array(z.object({ joinPath: codeWords(JOIN_PATH_CODES), count })),
    signUpsByDay: z.array(z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), count })),
  })
  .meta({ id: 'AccountsUserStats' }) satisfies z.ZodType<UserStats>;

/** The user id an administrator's action applied to. */
export const userIdSchema = z.number().int().meta({ description: '회원 id' });
