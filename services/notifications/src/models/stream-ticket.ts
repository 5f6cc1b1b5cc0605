import { registerModel, type AuthClaims } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A single-use ticket for the live stream (issue 38): the browser's EventSource cannot send an Authorization
 * header, so a member asks for a ticket with his token and opens the stream with `?ticket=`. Stored (not signed)
 * so that any replica can take it and taking it once removes it. `_id` is the ticket's random text.
 */
export interface StreamTicketDoc {
  _id: string;
  claims: AuthClaims;
  /** The stream ends when the token the ticket was asked with expires. */
  tokenExpiresAt: Date;
  expiresAt: Date;
}

const streamTicketSchema = new Schema<StreamTicketDoc>(
  {
    _id: { type: String, required: true },
    claims: { type: Schema.Types.Mixed, required: true },
    tokenExpiresAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'stream_tickets' },
);

// Expired tickets are swept by this key (domain/stream.ts).
streamTicketSchema.index({ expiresAt: 1 });

export const streamTicketModel = (connection: Connection): Model<StreamTicketDoc> => registerModel(connection, 'StreamTicket', streamTicketSchema);
