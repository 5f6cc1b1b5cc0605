import type { EventBus, Logger, UserSnapshotV1 } from '@binzip/shared';
import type { NotificationDoc } from '../models';

/**
 * The live side of the inbox (issue 38): which open streams of this process belong to which member, and the
 * NATS subjects that reach every replica. A stored notice is announced on `notifications.live.<userId>` (core
 * NATS, its id only): whichever replica holds that member's streams reads the notices past what each stream sent
 * from the store and sends them, so any replica can serve any member and nothing is sent twice on one stream. A
 * lost announcement (NATS away) is not a lost notice: the client's reconnect with `Last-Event-ID` reads it.
 *
 * The same connection hears accounts' user snapshots (`accounts.user.*`, published to JetStream and so seen by a
 * core subscription too) and closes the streams of a member suspended or withdrawn, with the reason.
 */
export type StreamEnd = 'TOKEN_EXPIRED' | 'SUSPENDED' | 'WITHDRAWN' | 'SERVER_CLOSING';

export interface LiveStream {
  userId: number;
  /** New notices may be in the store for this member. */
  wake(): void;
  /** The stream must end, and why. */
  end(reason: StreamEnd): void;
}

export class LiveNotices {
  private readonly streams = new Map<number, Set<LiveStream>>();
  private readonly subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(
    private readonly bus: EventBus | undefined,
    private readonly logger: Logger,
  ) {}

  /** Subscribes to the announcements (main.ts; tests with a bus). */
  start(): this {
    if (!this.bus) return this;
    const bus = this.bus;
    const announced = bus.connection.subscribe(bus.subject('notifications.live.*'), {
      callback: (err, msg) => {
        if (err) return;
        const userId = Number(msg.subject.split('.').pop());
        this.wakeLocal(userId);
      },
    });
    const users = bus.connection.subscribe(bus.subject('accounts.user.*'), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const user = msg.json<UserSnapshotV1>();
          if (user.status === 'SUSPENDED') this.endLocal(user.id, 'SUSPENDED');
          if (user.status === 'WITHDRAWN' || user.status === 'WITHDRAWAL_REQUESTED') this.endLocal(user.id, 'WITHDRAWN');
        } catch (e) {
          this.logger.warn('user snapshot not read by the live streams', { error: (e as Error).message });
        }
      },
    });
    this.subscriptions.push(announced, users);
    return this;
  }

  /** A consumer stored this notice: every replica holding its recipient's streams is woken. */
  deliver(doc: Pick<NotificationDoc, 'recipientId'>): void {
    if (!this.bus) {
      this.wakeLocal(doc.recipientId);
      return;
    }
    try {
      this.bus.connection.publish(this.bus.subject(`notifications.live.${doc.recipientId}`));
    } catch (err) {
      // NATS away: the local streams still hear of it; the others read it when their client reconnects.
      this.wakeLocal(doc.recipientId);
      this.logger.warn('live announcement not published', { error: (err as Error).message });
    }
  }

  add(stream: LiveStream): () => void {
    const set = this.streams.get(stream.userId) ?? new Set<LiveStream>();
    set.add(stream);
    this.streams.set(stream.userId, set);
    return () => {
      set.delete(stream);
      if (set.size === 0) this.streams.delete(stream.userId);
    };
  }

  /** Open streams in this process. */
  get size(): number {
    let count = 0;
    for (const set of this.streams.values()) count += set.size;
    return count;
  }

  wakeLocal(userId: number): void {
    for (const stream of this.streams.get(userId) ?? []) stream.wake();
  }

  endLocal(userId: number, reason: StreamEnd): void {
    for (const stream of [...(this.streams.get(userId) ?? [])]) stream.end(reason);
  }

  stop(): void {
    for (const sub of this.subscriptions) sub.unsubscribe();
    for (const set of [...this.streams.values()]) for (const stream of [...set]) stream.end('SERVER_CLOSING');
  }
}
