import type { ServiceContext } from '@binzip/shared';
import type { NotificationsModels, PushSubscriptionDoc } from '../models';

/** Where a notice leaves for a browser's push service; the domain knows this port only (issue 38). */
export interface PushSender {
  /** The VAPID public key browsers subscribe with (`applicationServerKey`). */
  readonly publicKey: string;
  /** Whether this server sends to that endpoint (the push services' hosts: a member's endpoint is not any URL). */
  allows(endpoint: URL): boolean;
  /** Sends one encrypted message; answers the push service's status (2xx accepted, 404/410 gone, else a failure). */
  send(subscription: PushSubscriptionDoc, payload: string): Promise<number>;
}

/** `push`: Web Push, when the VAPID keys are configured (issue 38); absent, no notice is pushed. */
export type NotificationsContext = ServiceContext<NotificationsModels> & { push?: PushSender };
