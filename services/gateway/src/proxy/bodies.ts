import type http from 'node:http';
import { ErrorCodes, GatewayFaults } from '@binzip/shared/core';
import type { Fault } from '../edge';

/** What reading a body came to: the whole body, an answer to give instead, or a client that went away. */
export type BodyOutcome = { body: Buffer } | { fault: Fault } | { aborted: true };

/** One address already sending as many bodies as it may: refused at once, the client may retry a moment later. */
export const tooManyBodies: Fault = { status: ErrorCodes.C0004.status, code: 'C0004', message: ErrorCodes.C0004.message };

/** Whether a request carries a body to read (a declared length above 0, or chunked framing). */
export function hasBody(req: http.IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Reads request bodies whole at the gateway before any upstream connection is taken for them (issue 19 item 2):
 * an upstream connection is then held only for as long as the service takes to answer, never for as long as a
 * client takes to send. Each body has a total deadline, not an idle one (nginx's `client_body_timeout` restarts at
 * every byte, which one byte every few seconds defeats), and one client address may send at most `perAddress`
 * bodies at once, so a single address cannot hold the gateway's memory or sockets either.
 */
export class BodyReader {
  private readonly reading = new Map<string, number>();

  constructor(private readonly perAddress: number) {}

  /** Bodies being read now for an address (tests and metrics). */
  readingFor(address: string): number {
    return this.reading.get(address) ?? 0;
  }

  read(req: http.IncomingMessage, address: string, limits: { bytes: number; deadlineMs: number }): Promise<BodyOutcome> {
    const held = this.reading.get(address) ?? 0;
    if (held >= this.perAddress) return Promise.resolve({ fault: tooManyBodies });
    this.reading.set(address, held + 1);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (outcome: BodyOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('close', onClose);
        const left = (this.reading.get(address) ?? 1) - 1;
        if (left > 0) this.reading.set(address, left);
        else this.reading.delete(address);
        resolve(outcome);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.bytes) finish({ fault: GatewayFaults.tooLarge });
        else chunks.push(chunk);
      };
      const onEnd = () => finish({ body: Buffer.concat(chunks, size) });
      // After `end` this is the normal close (already settled); before it, the client went away.
      const onClose = () => finish({ aborted: true });
      const deadline = setTimeout(() => finish({ fault: GatewayFaults.bodyTimeout }), limits.deadlineMs);
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('close', onClose);
    });
  }
}
