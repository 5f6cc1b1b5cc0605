import https from 'node:https';
import tls from 'node:tls';
import webpush from 'web-push';
import type { PushSubscriptionDoc } from '../models';
import type { PushSender } from './context';

export interface WebPushSettings {
  publicKey: string;
  privateKey: string;
  /** `mailto:` or `https:` contact the push services may use (VAPID `sub`). */
  subject: string;
  /** Hosts this server sends to: `fcm.googleapis.com`, or `*.push.apple.com` for every host under it. */
  endpointHosts: readonly string[];
  /** How long a push service keeps a message for an offline device. */
  ttlSeconds: number;
  /** One request's limit. */
  timeoutMs: number;
  /** An extra certificate authority to trust (the local push sink's, in development and tests). */
  ca?: string;
}

export const hostAllowed = (hosts: readonly string[], url: URL): boolean =>
  hosts.some((host) => (host.startsWith('*.') ? url.hostname.endsWith(host.slice(1)) : url.hostname === host));

/**
 * The real sender: the `web-push` library (VAPID, aes128gcm), to a push service or to the local sink
 * (scripts/lib/push-sink.ts), which differ only in their address and certificate.
 */
export class WebPushSender implements PushSender {
  readonly publicKey: string;
  private readonly agent: https.Agent;

  constructor(private readonly settings: WebPushSettings) {
    this.publicKey = settings.publicKey;
    this.agent = new https.Agent({ keepAlive: true, ...(settings.ca ? { ca: [...tls.rootCertificates, settings.ca] } : {}) });
  }

  allows(endpoint: URL): boolean {
    return endpoint.protocol === 'https:' && hostAllowed(this.settings.endpointHosts, endpoint);
  }

  async send(subscription: PushSubscriptionDoc, payload: string): Promise<number> {
    try {
      const sent = await webpush.sendNotification({ endpoint: subscription._id, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, payload, {
        vapidDetails: { subject: this.settings.subject, publicKey: this.settings.publicKey, privateKey: this.settings.privateKey },
        TTL: this.settings.ttlSeconds,
        timeout: this.settings.timeoutMs,
        agent: this.agent,
        contentEncoding: 'aes128gcm',
      });
      return sent.statusCode;
    } catch (err) {
      if (err instanceof webpush.WebPushError) return err.statusCode;
      throw err;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
