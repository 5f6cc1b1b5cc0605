import { headers as natsHeaders } from '@nats-io/nats-core';
import { REQUEST_ID_HEADER } from '../core/edge';
import { inMessagingSpan, injectTraceContext } from '../core/telemetry';
import type { PublishHost, PublishOptions } from './streams';

export type { PublishOptions } from './streams';

/**
 * Publishes and waits for the stream's ack; a repeated `messageId` is dropped by the server. A publish span
 * continues `trace` or, without it, the active trace, and the message carries its `traceparent` (only when
 * tracing is on).
 */
export async function publishMessage(bus: PublishHost, subject: string, payload: unknown, messageId: string, options: PublishOptions): Promise<void> {
  const stored = options.trace;
  await inMessagingSpan('publish', subject, stored ? { get: (key: string) => stored[key] } : undefined, async (span, active) => {
    const headers = natsHeaders();
    if (options.requestId) headers.set(REQUEST_ID_HEADER, options.requestId);
    if (span.isRecording()) injectTraceContext(active, headers);
    const send = () =>
      bus.jetstream.publish(bus.subject(subject), JSON.stringify(payload), {
        msgID: messageId,
        timeout: 5_000,
        headers: headers.keys().length > 0 ? headers : undefined,
      });
    const copies = Math.max(1, Math.floor(options.copies ?? 1));
    if (copies === 1) {
      await send();
      return;
    }
    // The first ack is enough: the others are the stream's duplicates of it, or were dropped unstored.
    await Promise.any(Array.from({ length: copies }, send)).catch((err: unknown) => {
      throw err instanceof AggregateError ? err.errors[0] : err;
    });
  });
}
