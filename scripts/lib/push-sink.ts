/**
 * A local push service for tests and development (issue 38): the receiving end of Web Push, as a browser's push
 * service and the browser behind it would be. It hands out subscriptions (an https endpoint of its own, a P-256
 * key pair and an auth secret, as `PushSubscription.toJSON()` gives them), accepts what a sender POSTs to an
 * endpoint after checking the VAPID signature (RFC 8292), decrypts the aes128gcm payload with the subscription's
 * private key (RFC 8291, written here from the RFC, not with the sender's library) and keeps it. An endpoint
 * marked gone answers 410, an unknown one 404, as push services do. It serves https with a throw-away certificate
 * made by `openssl`; the notifications service trusts it through `PUSH_CA_FILE`.
 */
import { execFileSync } from 'node:child_process';
import { createECDH, createPublicKey, createDecipheriv, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface SinkSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  endpoint: string;
  /** The decrypted payload, as text. */
  payload: string;
  ttl: number;
  urgency: string | undefined;
  /** The VAPID claims the sender signed (`aud`, `exp`, `sub`) and its public key (`k`). */
  vapid: { aud: string; exp: number; sub: string; k: string };
}

export interface PushSink {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The PEM certificate the sink serves (`PUSH_CA_FILE` names `caFile`). */
  ca: string;
  caFile: string;
  /** A new subscription, as a browser's `pushManager.subscribe()` would give it. */
  subscribe(): SinkSubscription;
  /** From now on the endpoint answers 410 Gone (the browser unsubscribed, the push service dropped it). */
  gone(endpoint: string): void;
  /** What arrived, oldest first. */
  received: ReceivedPush[];
  /** Requests refused (bad VAPID, bad encryption, unknown or gone endpoints), with the status answered. */
  refused: Array<{ endpoint: string; status: number; why: string }>;
  stop(): Promise<void>;
}

interface Device {
  ecdh: ECDH;
  auth: Buffer;
  gone: boolean;
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

/** RFC 8291: the aes128gcm body of one message (one record, as Web Push senders write it). */
export function decryptAes128gcm(body: Buffer, device: { ecdh: ECDH; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const receiverKey = device.ecdh.getPublicKey();
  const secret = device.ecdh.computeSecret(senderKey);
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), receiverKey, senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, device.auth, info, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then any padding zeros.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end -= 1;
  if (plain[end] !== 2) throw new Error('no last-record delimiter');
  return plain.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`; the JWT is ES256 over the claims, signed by the key `k`. */
export function verifyVapid(header: string | undefined, origin: string, now = Date.now()): ReceivedPush['vapid'] {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) throw new Error('no vapid authorization');
  const [, token, k] = match;
  const [head, claims, signature] = token.split('.');
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }, format: 'jwk' });
  if (!verify('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')))
    throw new Error('bad vapid signature');
  const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { aud: string; exp: number; sub: string };
  if (parsed.aud !== origin) throw new Error(`aud ${parsed.aud} is not ${origin}`);
  if (!(parsed.exp * 1000 > now && parsed.exp * 1000 <= now + 24 * 3_600_000)) throw new Error('exp not within 24 h');
  if (!/^(mailto:|https:)/.test(parsed.sub)) throw new Error('sub is not a mailto: or https: address');
  return { ...parsed, k };
}

function selfSignedCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
      ...['-keyout', keyFile, '-out', certFile, '-subj', '/CN=binzip push sink', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

export async function startPushSink(options: { port?: number; log?: (line: string) => void } = {}): Promise<PushSink> {
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'binzip-push-sink-'));
  const { key, cert, certFile } = selfSignedCertificate(dir);
  const devices = new Map<string, Device>();
  const received: ReceivedPush[] = [];
  const refused: PushSink['refused'] = [];
  let url = '';

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const endpoint = `${url}${req.url ?? ''}`;
      const refuse = (status: number, why: string) => {
        refused.push({ endpoint, status, why });
        log(`[push-sink] ${status} ${endpoint}: ${why}`);
        res.writeHead(status, { 'content-type': 'text/plain' }).end(why);
      };
      const device = devices.get(endpoint);
      if (req.method !== 'POST') return refuse(405, 'POST only');
      if (!device) return refuse(404, 'no such subscription');
      if (device.gone) return refuse(410, 'subscription gone');
      const ttl = Number(req.headers.ttl);
      if (!Number.isInteger(ttl) || ttl < 0) return refuse(400, 'TTL header missing');
      let vapid: ReceivedPush['vapid'];
      try {
        vapid = verifyVapid(req.headers.authorization, url);
      } catch (err) {
        return refuse(403, (err as Error).message);
      }
      if (req.headers['content-encoding'] !== 'aes128gcm') return refuse(415, 'aes128gcm only');
      let payload: string;
      try {
        payload = decryptAes128gcm(Buffer.concat(chunks), device);
      } catch (err) {
        return refuse(400, `not decrypted: ${(err as Error).message}`);
      }
      const urgency = typeof req.headers.urgency === 'string' ? req.headers.urgency : undefined;
      received.push({ endpoint, payload, ttl, urgency, vapid });
      log(`[push-sink] 201 ${endpoint}: ${payload}`);
      res.writeHead(201, { location: `${endpoint}/messages/${received.length}` }).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    ca: cert,
    caFile: certFile,
    subscribe: () => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const endpoint = `${url}/push/${b64(randomBytes(12))}`;
      devices.set(endpoint, { ecdh, auth, gone: false });
      return { endpoint, expirationTime: null, keys: { p256dh: b64(ecdh.getPublicKey()), auth: b64(auth) } };
    },
    gone: (endpoint) => {
      const device = devices.get(endpoint);
      if (device) device.gone = true;
    },
    received,
    refused,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
