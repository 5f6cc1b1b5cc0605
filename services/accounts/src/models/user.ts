import { addOutbox, registerModel, type Authority, type OutboxEvent, type UserStatus, type UserType } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';
import type { AgeCode, EstateCode, JoinPathCode, Term, WithdrawalReason } from '../domain/rules';

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
