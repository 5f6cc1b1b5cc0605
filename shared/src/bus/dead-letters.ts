import type { StoredMsg } from '@nats-io/jetstream';
import { defineStream } from './streams';

/**
 * Events a consumer gave up on (deliveries exhausted, or a payload that fails its schema) are copied to the
 * `DEAD_LETTERS` stream on `deadletter.<consumer>` before they are terminated, so none vanishes silently.
 * Body: the original bytes. Headers: where it came from and why (below), and the original `x-request-id`.
 */
export const DEAD_LETTER_SUBJECT = 'deadletter';

/** Kept longer than events, for a person to inspect and replay; ensured by every consumer. */
export const deadLetterStream = defineStream({ name: 'DEAD_LETTERS', subjects: [`${DEAD_LETTER_SUBJECT}.>`], purpose: 'deadLetters' });

export const DeadLetterHeaders = {
  stream: 'Binzip-Original-Stream',
  subject: 'Binzip-Original-Subject',
  sequence: 'Binzip-Original-Sequence',
  consumer: 'Binzip-Consumer',
  reason: 'Binzip-Reason',
  deliveries: 'Binzip-Deliveries',
  error: 'Binzip-Error',
} as const;

export type DeadLetterReason = 'max_deliveries' | 'invalid_payload';

export interface DeadLetter {
  /** Sequence in the dead-letter stream. */
  seq: number;
  stream: string;
  subject: string;
  originalSequence: number;
  consumer: string;
  reason: string;
  deliveries: number;
  error: string;
  requestId?: string;
  /** The original message body as text (JSON for every event of this project). */
  payload: string;
}

export function toDeadLetter(stored: StoredMsg): DeadLetter {
  const header = (name: string) => stored.header.get(name) ?? '';
  return {
    seq: stored.seq,
    stream: header(DeadLetterHeaders.stream),
    subject: header(DeadLetterHeaders.subject),
    originalSequence: Number(header(DeadLetterHeaders.sequence)),
    consumer: header(DeadLetterHeaders.consumer),
    reason: header(DeadLetterHeaders.reason),
    deliveries: Number(header(DeadLetterHeaders.deliveries)),
    error: header(DeadLetterHeaders.error),
    requestId: stored.header.get('x-request-id') || undefined,
    payload: new TextDecoder().decode(stored.data),
  };
}
