import { addOutbox, registerModel, type OutboxEvent } from '@binzip/shared';
import { Schema, type Types, type Connection, type Model } from 'mongoose';
import { REFRESH_TTL_SECONDS } from './refresh-token';

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
