import type http from 'node:http';
import { ErrorCodes, GatewayFaults } from '@binzip/shared/core';
import type { Fault } from '../edge';
import { guarded } from '../edge';

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
 *
 * What all bodies held here weigh together is bounded too (`budgetBytes`, issue 34 item 5): the bytes a body has
 * arrived with count until its request's answer is over, and a body whose next bytes find no room is refused with
 * 503 and Retry-After (what is counted is what is held: a declared length costs nothing until it arrives).
 */
export class BodyReader {
  private readonly reading = new Map<string, number>();
  private reserved = 0;

  constructor(
    private readonly perAddress: number,
    private readonly budgetBytes: number,
  ) {}

  /** Bodies being read now for an address (tests and metrics). */
  readingFor(address: string): number {
    return this.reading.get(address) ?? 0;
  }

  /** Bytes of the budget given to bodies now. */
  get reservedBytes(): number {
    return this.reserved;
  }

  /**
   * Counts one more body from an address (read here or streamed on); the function returned gives the place
   * back, once. Undefined when the address already sends as many as it may.
   */
  hold(address: string): (() => void) | undefined {
    const held = this.reading.get(address) ?? 0;
    if (held >= this.perAddress) return undefined;
    this.reading.set(address, held + 1);
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      const left = (this.reading.get(address) ?? 1) - 1;
      if (left > 0) this.reading.set(address, left);
      else this.reading.delete(address);
    };
  }

  /**
   * Reads a body whole. `start` is called just before the first byte is waited for (the 100 of
   * `Expect: 100-continue`); the bytes held count against the budget until `res` closes.
   */
  read(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    address: string,
    limits: { bytes: number; deadlineMs: number },
    start: () => void,
  ): Promise<BodyOutcome> {
    const release = this.hold(address);
    if (release === undefined) return Promise.resolve({ fault: tooManyBodies });
    // The bytes this body holds of the budget, given back when its answer is over (the body is forwarded by then).
    let share = 0;
    res.once(
      'close',
      guarded(
        () => undefined,
        () => {
          this.reserved -= share;
          share = 0;
        },
      ),
    );
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
        release();
        resolve(outcome);
      };
      const failed = () => finish({ fault: { status: 500, code: 'C0000', message: ErrorCodes.C0000.message } });
      const onData = guarded(failed, (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.bytes) {
          finish({ fault: GatewayFaults.tooLarge });
          return;
        }
        if (this.reserved + chunk.length > this.budgetBytes) {
          finish({ fault: bodiesBusy });
          return;
        }
        this.reserved += chunk.length;
        share += chunk.length;
        chunks.push(chunk);
      });
      const onEnd = guarded(failed, () => finish({ body: Buffer.concat(chunks, size) }));
      // After `end` this is the normal close (already settled); before it, the client went away.
      const onClose = guarded(failed, () => finish({ aborted: true }));
      const deadline = setTimeout(
        guarded(failed, () => finish({ fault: GatewayFaults.bodyTimeout })),
        limits.deadlineMs,
      );
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('close', onClose);
      guarded(failed, start)();
    });
  }
}

/** The bodies held at the gateway weigh as much as they may together: refused at once, retried a moment later. */
export const bodiesBusy: Fault = GatewayFaults.unavailable;
