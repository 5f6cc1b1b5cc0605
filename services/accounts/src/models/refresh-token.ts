import { registerModel } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

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
