/**
 * What accounts stores: one mongoose schema per collection, each registered on the service's connection, and
 * `accountsModels(connection)`, the models by lower-case name that the context carries.
 */
import {
  registerModel,
  type AuditService,
  type AuditTargetType,
  addOutbox,
  type OutboxEvent,
  type Authority,
  type UserStatus,
  type UserType,
} from '@binzip/shared';
import { Schema, type Connection, type Model, type Types } from 'mongoose';
import type { AgeCode, EstateCode, JoinPathCode, Term, WithdrawalReason } from './domain/rules';

/**
 * One administrator's action, as the service that took it published it (`audit.<service>`, issue 40). `_id` is the
 * event id, so a redelivered or re-published event is stored once. Written only by the consumer; no operation
 * changes or deletes an entry.
 */
export interface AuditEntryDoc {
  _id: string;
  service: AuditService;
  actorId: number;
  /** The actor's userName as the token named it at the time of the action. */
  actorUserName: string;
  action: string;
  targetType: AuditTargetType;
  targetId: number;
  memberId: number | null;
  reason: string | null;
  requestId: string | null;
  at: Date;
}

const auditEntrySchema = new Schema<AuditEntryDoc>(
  {
    _id: { type: String, required: true },
    service: { type: String, required: true },
    actorId: { type: Number, required: true },
    actorUserName: { type: String, required: true },
    action: { type: String, required: true },
    targetType: { type: String, required: true },
    targetId: { type: Number, required: true },
    memberId: { type: Number, default: null },
    reason: { type: String, default: null },
    requestId: { type: String, default: null },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'audit_entries' },
);
// Newest first, alone (a from/to range bounds it) or after one equality filter: the actor (by id or userName), the
// action, the target (type, or type and id, or id alone) and the member concerned (a member's page).
auditEntrySchema.index({ at: -1, _id: -1 });
auditEntrySchema.index({ actorId: 1, at: -1, _id: -1 });
auditEntrySchema.index({ actorUserName: 1, at: -1, _id: -1 });
auditEntrySchema.index({ action: 1, at: -1, _id: -1 });
auditEntrySchema.index({ targetType: 1, targetId: 1, at: -1, _id: -1 });
auditEntrySchema.index({ targetId: 1, at: -1, _id: -1 });
auditEntrySchema.index({ memberId: 1, at: -1, _id: -1 });

export const auditEntryModel = (connection: Connection): Model<AuditEntryDoc> => registerModel(connection, 'AuditEntry', auditEntrySchema);

/**
 * One `houses.report.created` event as accounts received it; `_id` is the event id, so a redelivered event
 * is stored once. The author's `reportCount` and `reportedAt` are derived from these rows.
 */
export interface HouseReportDoc {
  _id: string;
  authorId: number;
  houseId: number;
  reportedAt: Date;
}

const houseReportSchema = new Schema<HouseReportDoc>(
  {
    _id: { type: String, required: true },
    authorId: { type: Number, required: true },
    houseId: { type: Number, required: true },
    reportedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'house_reports' },
);
// An author's latest report (reportedAt) and their count.
houseReportSchema.index({ authorId: 1, reportedAt: -1 });

export const houseReportModel = (connection: Connection): Model<HouseReportDoc> => registerModel(connection, 'HouseReport', houseReportSchema);

/**
 * A refresh token as the server knows it: only the sha256 of the opaque value. Tokens of one sign-in share a
 * family; rotation marks the old one, and presenting a marked one again revokes the whole family.
 */
/** How long a refresh token (and so a session without activity) lives. */
export const REFRESH_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface RefreshTokenDoc {
  _id: string;
  userId: number;
  familyId: string;
  createdAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
}

const refreshTokenSchema = new Schema<RefreshTokenDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: Number, required: true, index: true },
    familyId: { type: String, required: true, index: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    rotatedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'refresh_tokens' },
);

export const refreshTokenModel = (connection: Connection): Model<RefreshTokenDoc> => registerModel(connection, 'RefreshToken', refreshTokenSchema);

/**
 * One ending of sessions (logout, password change, withdrawal, a reused refresh token), written before their
 * refresh tokens are revoked and carrying its `sessions.revoked` in `pendingEvents`: the one document the
 * revocation is, so the outbox relay publishes it whenever NATS is there, however many refresh tokens it ends.
 */
export interface SessionRevocationDoc {
  _id: Types.ObjectId;
  userId: number;
  sessionIds: string[];
  createdAt: Date;
  pendingEvents: OutboxEvent[];
}

/**
 * Reissue reads the revocations too (a crash may have come between the record and the refresh tokens' revocation),
 * so one is kept as long as a refresh token of its sessions could still be presented, plus a day; then MongoDB
 * drops it. The local dev store ignores TTL indexes and keeps them, harmlessly (docs/dev-mongo.md).
 */
export const SESSION_REVOCATION_KEPT_SECONDS = REFRESH_TTL_SECONDS + 24 * 60 * 60;

const sessionRevocationSchema = new Schema<SessionRevocationDoc>(
  {
    userId: { type: Number, required: true },
    sessionIds: { type: [String], required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'session_revocations' },
);
addOutbox(sessionRevocationSchema);
sessionRevocationSchema.index({ createdAt: 1 }, { expireAfterSeconds: SESSION_REVOCATION_KEPT_SECONDS });
// Reissue: is the presented token's session among the revoked ones.
sessionRevocationSchema.index({ sessionIds: 1 });

export const sessionRevocationModel = (connection: Connection): Model<SessionRevocationDoc> =>
  registerModel(connection, 'SessionRevocation', sessionRevocationSchema);

/**
 * Password attempts of one account (`_id` = user id), for sign-in, check/password and the profile change's
 * current password alike. Kept apart from the user document so its updates never race the compare-and-set
 * updates of the user, and in MongoDB so every accounts instance sees it.
 */
export interface SignInThrottleDoc {
  _id: number;
  /**
   * Attempts of this lock window that are being judged or were judged wrong: reserved before the password is
   * compared, so parallel guesses can never exceed the limit. A right password gives its slot back.
   */
  attempts: number;
  /** Of `attempts`, those still being judged. */
  pending: number;
  /** When the last attempt was reserved (a reservation left by a crashed process goes stale after a while). */
  reservedAt: Date | null;
  /** Every attempt is refused until then. */
  lockedUntil: Date | null;
}

const signInThrottleSchema = new Schema<SignInThrottleDoc>(
  {
    _id: { type: Number, required: true },
    attempts: { type: Number, default: 0 },
    pending: { type: Number, default: 0 },
    reservedAt: { type: Date, default: null },
    lockedUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'sign_in_throttles' },
);

export const signInThrottleModel = (connection: Connection): Model<SignInThrottleDoc> => registerModel(connection, 'SignInThrottle', signInThrottleSchema);

export interface AgentProfile {
  agentCode: string;
  businessCode: string;
  companyName: string;
  companyAddress: string;
  companyAddressDetail: string;
  companyEmail: string;
  companyPhoneNum: string;
  agentName: string;
  assistantName: string | null;
  estate: EstateCode;
}

export interface Withdrawal {
  reasons: WithdrawalReason[];
  content: string;
  requestedAt: Date;
}

/** Set while an administrator keeps the account suspended (status SUSPENDED). */
export interface Suspension {
  reason: string;
  suspendedAt: Date;
}

export interface UserDoc {
  _id: number;
  userName: string;
  passwordHash: string;
  nickName: string;
  phoneNum: string;
  email: string;
  age: AgeCode | null;
  joinPaths: JoinPathCode[];
  terms: Term[];
  authority: Authority;
  userType: UserType;
  status: UserStatus;
  profileImageUrl: string | null;
  agent: AgentProfile | null;
  withdrawal: Withdrawal | null;
  suspension?: Suspension | null;
  /** Reports against the member's listings (houses.report.created): how many, and the latest time. */
  reportCount?: number;
  reportedAt?: Date | null;
  /** Grows with every change to the published snapshot; consumers keep the newest. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
  pendingEvents: OutboxEvent[];
}

const agentSchema = new Schema<AgentProfile>(
  {
    agentCode: String,
    businessCode: String,
    companyName: String,
    companyAddress: String,
    companyAddressDetail: String,
    companyEmail: String,
    companyPhoneNum: String,
    agentName: String,
    assistantName: { type: String, default: null },
    estate: String,
  },
  { _id: false },
);

const withdrawalSchema = new Schema<Withdrawal>({ reasons: [String], content: String, requestedAt: Date }, { _id: false });

const suspensionSchema = new Schema<Suspension>({ reason: String, suspendedAt: Date }, { _id: false });

const userSchema = new Schema<UserDoc>(
  {
    _id: { type: Number, required: true },
    userName: { type: String, required: true, unique: true },
    passwordHash: { type: String, required: true },
    nickName: { type: String, required: true, unique: true },
    phoneNum: { type: String, required: true, unique: true },
    email: { type: String, required: true, unique: true },
    age: { type: String, default: null },
    joinPaths: { type: [String], default: [] },
    terms: { type: [String], default: [] },
    authority: { type: String, required: true },
    userType: { type: String, required: true },
    status: { type: String, required: true },
    profileImageUrl: { type: String, default: null },
    agent: { type: agentSchema, default: null },
    withdrawal: { type: withdrawalSchema, default: null },
    suspension: { type: suspensionSchema, default: null },
    reportCount: { type: Number, default: 0 },
    reportedAt: { type: Date, default: null },
    version: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'users' },
);
addOutbox(userSchema);
// The administrators' member list: newest first, optionally by status or type (and the statistics' counts).
userSchema.index({ createdAt: -1, _id: -1 });
userSchema.index({ status: 1, createdAt: -1, _id: -1 });
// The administrators' withdrawal queue: open requests, oldest first.
userSchema.index({ status: 1, 'withdrawal.requestedAt': 1, _id: 1 });
// The administrators' statistics: one count per user type, age band and join path among the counted statuses.
userSchema.index({ status: 1, userType: 1 });
userSchema.index({ status: 1, age: 1 });
userSchema.index({ status: 1, joinPaths: 1 });
userSchema.index({ userType: 1, createdAt: -1, _id: -1 });
// The revocation feed: the users changed since a moment (domain/revocation-feed.ts).
userSchema.index({ updatedAt: 1 });
// The administrators' member list sorted by reports against the member (issue 40), alone or after a filter.
userSchema.index({ reportCount: -1, createdAt: -1, _id: -1 });
userSchema.index({ status: 1, reportCount: -1, createdAt: -1, _id: -1 });
userSchema.index({ userType: 1, reportCount: -1, createdAt: -1, _id: -1 });

export const userModel = (connection: Connection): Model<UserDoc> => registerModel(connection, 'User', userSchema);

export type Channel = 'sms' | 'email';

/** One document per channel and target (`sms:01012345678`, `email:a@b.co`): the live code and the send log. */
export interface VerificationDoc {
  _id: string;
  codeHash: string | null;
  salt: string | null;
  expiresAt: Date | null;
  failedChecks: number;
  used: boolean;
  /** Send times within the short rate-limit window (10 minutes). */
  sends: Date[];
  /** Send times within the daily window (24 hours). */
  dailySends: Date[];
  /** Set by a successful check; update/phone and update/email need it to be in the future. */
  verifiedUntil: Date | null;
}

const verificationSchema = new Schema<VerificationDoc>(
  {
    _id: { type: String, required: true },
    codeHash: { type: String, default: null },
    salt: { type: String, default: null },
    expiresAt: { type: Date, default: null },
    failedChecks: { type: Number, default: 0 },
    used: { type: Boolean, default: false },
    sends: { type: [Date], default: [] },
    dailySends: { type: [Date], default: [] },
    verifiedUntil: { type: Date, default: null },
  },
  { versionKey: false, collection: 'verifications' },
);

export const verificationModel = (connection: Connection): Model<VerificationDoc> => registerModel(connection, 'Verification', verificationSchema);

export const verificationKey = (channel: Channel, target: string): string => `${channel}:${target}`;

export type AccountsModels = ReturnType<typeof accountsModels>;

export function accountsModels(connection: Connection) {
  return {
    users: userModel(connection),
    refreshTokens: refreshTokenModel(connection),
    sessionRevocations: sessionRevocationModel(connection),
    verifications: verificationModel(connection),
    signInThrottles: signInThrottleModel(connection),
    houseReports: houseReportModel(connection),
    /** The administrators' audit trail of every service (issue 40). */
    auditEntries: auditEntryModel(connection),
  };
}

/** Unique indexes must exist before the duplicate rules can rely on them. */
export async function initModels(models: AccountsModels): Promise<void> {
  await Promise.all([
    models.users.init(),
    models.refreshTokens.init(),
    models.sessionRevocations.init(),
    models.verifications.init(),
    models.signInThrottles.init(),
    models.houseReports.init(),
    models.auditEntries.init(),
  ]);
}
