/**
 * The scaffolding every end-to-end file needs: the built processes started on the run's stores (or a private
 * NATS server) under fresh names, an HTTP client for the gateway, a bus under the test's prefix, and a
 * clean-up that leaves no database or stream behind.
 */
import {
  connectMongo,
  consume,
  createLogger,
  EventBus,
  userSnapshots,
  type Envelope,
  type EventData,
  type EventDefinition,
  type RunningConsumer,
  type UserSnapshotV1,
} from '@binzip/shared';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'mongoose';
import { portOpen } from '../../scripts/lib/server-process';
import { SERVICES, startSystem, type RunningSystem, type ServiceName, type SystemOptions } from '../../scripts/lib/system';
import { recordAnswer, recordingDir } from './api-examples';
import { apiContract, type ApiContract } from './contract';
import { eventually, isolatedNames, publishUserSnapshot, testEnv, userSnapshot } from './index';

export interface E2eOptions {
  services: ServiceName[];
  instances?: SystemOptions['instances'];
  /** Gateways (default 1) and whether each forwards to its own replica only (see SystemOptions). */
  gateways?: number;
  splitUpstreams?: boolean;
  /** How long each process may take to start (see SystemOptions). */
  readyTimeoutMs?: number;
  /** Extra environment for every process. */
  env?: NodeJS.ProcessEnv;
  /** A private NATS server (outage tests); the run's server when absent. */
  natsUrl?: string;
  /** A private MongoDB-protocol server (outage tests); the run's store when absent. */
  mongoUri?: string;
  /** Restart delays for processes that exit by themselves (the launcher's default when absent). */
  restartBackoffMs?: number[];
  /** Runs before the processes start, e.g. to publish what they must find on start-up. */
  beforeStart?: (e2e: E2eStores) => Promise<void>;
}

export interface ApiOptions {
  /** `Authorization` header value, e.g. from `bearer()` or a sign-in. */
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is with the JSON content type (malformed input). */
  rawBody?: string;
  /** Sent as multipart/form-data (uploads). */
  form?: FormData;
  headers?: Record<string, string>;
  /** Which gateway to send through (index into `system.gateways`; default the first). */
  gateway?: number;
  /**
   * Off for requests that deliberately leave the API (unknown routes, malformed paths); otherwise every answer
   * under a documented prefix is checked against the API document (test/support/contract.ts).
   */
  contract?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: Envelope<T>;
}

/** What is there before the processes start. */
export interface E2eStores {
  names: { db: string; natsPrefix: string };
  natsUrl: string;
  /** Database of a service, `<names.db>_<service>`. */
  dbName(service: ServiceName): string;
  /** A connection to a service's database (one client, closed by `stop`). */
  db(service: ServiceName): Promise<Connection>;
  /** The bus under the test's prefix, connected on first use and closed by `stop`. */
  bus(): Promise<EventBus>;
  /** Publishes an accounts.user.<id> snapshot as accounts would (ACCOUNTS stream ensured). */
  publishUser(user: Pick<UserSnapshotV1, 'id' | 'nick_name'> & Partial<UserSnapshotV1>): Promise<void>;
  /** Collects what the services publish: a durable consumer on the test's bus, stopped by `stop`. */
  collect<E extends EventDefinition>(event: E, durable: string): Promise<Array<EventData<E>>>;
}

export interface E2eSystem extends E2eStores {
  system: RunningSystem;
  /** Gateway base URL. */
  url: string;
  /** A request through the gateway; the answer must be a JSON envelope. */
  api<T = unknown>(method: string, path: string, options?: ApiOptions): Promise<ApiResponse<T>>;
  /** A request that must answer 200; gives its `data`. */
  ok<T = unknown>(method: string, path: string, options?: ApiOptions): Promise<T>;
  /** Signs in through the gateway; gives the access token (`Bearer ...`). */
  signIn(userName: string, password: string): Promise<string>;
  /** Where accounts' local senders write (`DEV_OUTBOX_DIR`: the test's own, or one the kit made and removes). */
  outboxDir: string;
  /** The code accounts last sent to a phone or e-mail address, once it has arrived (fails after 10 s). */
  codeSentTo(to: string): Promise<string>;
  /** Sends a code to each contact of a sign-up body (phone; e-mail when the body has one) and checks it. */
  verifyContacts(body: { phone_num: string; email?: string }): Promise<void>;
  /** Verifies the contacts as the site's client does, then signs up (an agent when the body has `agent_code`). */
  signUp<B extends { phone_num: string; email?: string; agent_code?: string }>(body: B): Promise<B>;
  /** Stops the processes, drops every `<names.db>_<service>` database and deletes the prefixed streams. */
  stop(): Promise<void>;
}

/**
 * The verification code the accounts service last sent to `to` through its local sender, which appends every
 * message to `<outboxDir>/messages.jsonl` (`DEV_OUTBOX_DIR`); undefined until one arrives.
 */
export function codeSentTo(outboxDir: string, to: string): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(outboxDir, 'messages.jsonl'), 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  const message = lines
    .map((l) => JSON.parse(l) as { to: string; text: string })
    .reverse()
    .find((m) => m.to === to);
  return message ? /\b(\d{4,8})\b/.exec(message.text)?.[1] : undefined;
}

/** A complete, saveable house listing (a general member's waits for approval; an agent's is public at once). */
export const sampleListing = (title: string) => ({
  rentalType: 'JEONSE',
  city: '전라남도 담양군 창평면',
  detail: '삼지내마을 12',
  zipCode: '57330',
  size: '99.2',
  purpose: '주거용',
  floorNum: null,
  contact: '01055556666',
  createdDate: '1975',
  price: 8000,
  monthlyPrice: 0,
  agentName: null,
  title,
  code: '<p>돌담길 옆 한옥</p>',
  imageUrls: ['https://img.example.com/hanok.jpg'],
  tmpYn: false,
  recommendedTag: ['WANT_TO_READY_HOUSE'],
});

/** An item of `GET /api/v1/notifications` (two files read inboxes). */
export type { NotificationItem } from '../../services/notifications/src/domain/inbox';

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Answers under a documented prefix must match the document; other paths are not the document's business yet.
 * When recording (`npm run api:examples`), an answer that matched is kept with its request as an example.
 */
export async function checkAgainstDocument(method: string, path: string, requestBody: unknown, status: number, body: unknown): Promise<void> {
  const contract = await apiContract();
  const pathname = path.split('?')[0] ?? path;
  const operation = contract.operationOf(method, pathname);
  if (!operation && !documentedPrefixes(contract).some((prefix) => pathname.startsWith(prefix))) return;
  contract.check({ method, path, status, body });
  const recording = recordingDir();
  if (recording && operation) recordAnswer(recording, operation, { path, body: requestBody }, status, body);
}

let prefixes: string[] | undefined;
/**
 * `/api/v1/notifications` and the like: the first three segments of every documented path. `/api/v1/admin` is
 * shared by several services, so there a prefix is the documented path up to its first parameter
 * (`/api/v1/admin/reports`, `/api/v1/admin/stats/houses`): one service's document does not claim another's.
 */
function documentedPrefixes(contract: ApiContract): string[] {
  return (prefixes ??= [...new Set(Object.keys(contract.document.paths ?? {}).map(prefixOf))]);
}

function prefixOf(template: string): string {
  const segments = template.split('/');
  if (segments[3] !== 'admin') return segments.slice(0, 4).join('/');
  const firstParam = segments.findIndex((segment) => segment.startsWith('{'));
  return segments.slice(0, firstParam === -1 ? segments.length : firstParam).join('/');
}

function createStores(label: string, natsUrl: string, mongoUri: string, replicas: number): E2eStores & { cleanUp: () => Promise<void> } {
  const names = isolatedNames(label);
  const dbName = (service: ServiceName) => `${names.db}_${service}`;
  let client: Promise<Connection> | undefined;
  let bus: Promise<EventBus> | undefined;
  let accountsStream: Promise<void> | undefined;
  const consumers: RunningConsumer[] = [];

  const stores: E2eStores = {
    names,
    natsUrl,
    dbName,
    db: async (service) => (await (client ??= connectMongo(mongoUri, dbName(service)))).useDb(dbName(service), { useCache: true }),
    // A failed connection is not kept: a new cluster's first JetStream request can go unanswered while it elects
    // its leader, and the caller tries again (test/e2e/nats-partition.e2e.test.ts).
    bus: () =>
      (bus ??= EventBus.connect({
        url: natsUrl,
        prefix: names.natsPrefix,
        name: `${label}-e2e`,
        logger: createLogger('e2e', 'silent'),
        // The processes' replica count: a stream this bus ensures (`collect`, `publishUser`) is brought to this
        // bus's settings, and one replica would shrink the cluster's three-replica streams to one node.
        streams: { replicas },
      }).catch((err: unknown) => {
        bus = undefined;
        throw err;
      })),
    publishUser: async (user) => {
      const connected = await stores.bus();
      await (accountsStream ??= connected.ensureStream(userSnapshots.stream));
      await publishUserSnapshot(connected, userSnapshots.schema.parse(userSnapshot(user.id, user.nick_name, user)));
    },
    collect: async (event, durable) => {
      const received: Array<EventData<typeof event>> = [];
      const connected = await stores.bus();
      consumers.push(await connected.consume(consume(event, { durable, handle: async (data) => void received.push(data) })));
      return received;
    },
  };

  /** Every step runs even when an earlier one fails (or never started); the first error is thrown at the end. */
  const cleanUp = async () => {
    const errors: unknown[] = [];
    const step = (work: () => Promise<unknown>) => work().catch((err: unknown) => void errors.push(err));
    for (const consumer of consumers.splice(0)) await step(() => consumer.stop());
    await step(async () => {
      // A private server a test left stopped has nothing to clean, and a connection to it would never settle.
      const url = new URL(natsUrl.split(',')[0].trim());
      const reachable = await portOpen(url.hostname, Number(url.port || 4222));
      if (!reachable) return bus && (await bus).connection.close();
      const connected = await stores.bus();
      await connected.deleteStreams();
      await connected.close();
    });
    await step(async () => {
      const connection = await (client ??= connectMongo(mongoUri, dbName(SERVICES[0])));
      for (const service of SERVICES) await connection.useDb(dbName(service)).dropDatabase();
      await connection.close();
    });
    if (errors.length > 0) throw errors[0];
  };
  return { ...stores, cleanUp };
}

/** Starts the built gateway and `options.services` (run `npx tsc -b` first) under fresh names. */
export async function startE2eSystem(label: string, options: E2eOptions): Promise<E2eSystem> {
  const env = testEnv();
  const natsUrl = options.natsUrl ?? env.natsUrl;
  const mongoUri = options.mongoUri ?? env.mongoUri;
  const { cleanUp: cleanUpStores, ...stores } = createStores(label, natsUrl, mongoUri, Number(options.env?.NATS_REPLICAS ?? 1));
  // Sign-up needs verified contacts, so accounts always writes its codes where the test can read them.
  const ownOutbox = options.env?.DEV_OUTBOX_DIR === undefined;
  const outboxDir = options.env?.DEV_OUTBOX_DIR ?? mkdtempSync(path.join(os.tmpdir(), `${label}-outbox-`));
  const cleanUp = async () => {
    if (ownOutbox) rmSync(outboxDir, { recursive: true, force: true });
    await cleanUpStores();
  };
  let system: RunningSystem | undefined;
  try {
    await options.beforeStart?.(stores);
    system = await startSystem({
      mongoUri,
      natsUrl,
      publicKey: env.publicKey,
      privateKey: env.privateKey,
      services: options.services,
      instances: options.instances,
      gateways: options.gateways,
      splitUpstreams: options.splitUpstreams,
      readyTimeoutMs: options.readyTimeoutMs,
      dbPrefix: `${stores.names.db}_`,
      natsPrefix: stores.names.natsPrefix,
      env: { ...options.env, DEV_OUTBOX_DIR: outboxDir },
      restartBackoffMs: options.restartBackoffMs,
    });
  } catch (err) {
    // startSystem stops what it started; what the processes or beforeStart created is removed here.
    await cleanUp().catch(() => undefined);
    throw err;
  }
  const running = system;

  const api = async <T>(method: string, path: string, request: ApiOptions = {}): Promise<ApiResponse<T>> => {
    const hasBody = request.body !== undefined || request.rawBody !== undefined;
    const base = request.gateway === undefined ? running.url : running.gateways[request.gateway % running.gateways.length].url;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(hasBody ? { 'Content-Type': 'application/json;charset=UTF-8' } : {}),
        ...(request.token !== undefined ? { Authorization: request.token } : {}),
        ...request.headers,
      },
      body: request.form ?? request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body)),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let body: Envelope<T>;
    try {
      body = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new Error(`${method} ${path}: ${res.status} answered no JSON envelope: ${JSON.stringify(text.slice(0, 500))}`);
    }
    if (request.contract !== false) await checkAgainstDocument(method, path, request.body, res.status, body);
    return { status: res.status, headers: res.headers, body };
  };

  const ok = async <T>(method: string, path: string, request?: ApiOptions): Promise<T> => {
    const res = await api<T>(method, path, request);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as T;
  };

  const codeFor = (to: string) => eventually(() => codeSentTo(outboxDir, to), 10_000);
  const verifyContacts = async (body: { phone_num: string; email?: string }) => {
    const contacts: Array<['sms' | 'email', 'phone_num' | 'email', string]> = [['sms', 'phone_num', body.phone_num]];
    // Addresses are stored and mailed in lower case.
    if (body.email !== undefined) contacts.push(['email', 'email', body.email.toLowerCase()]);
    for (const [channel, field, target] of contacts) {
      await ok('POST', `/api/v1/users/send/${channel}`, { body: { [field]: target } });
      const checked = await ok<boolean>('POST', `/api/v1/users/check/${channel}`, { body: { [field]: target, code: await codeFor(target) } });
      if (checked !== true) throw new Error(`check/${channel} of ${target} answered ${String(checked)}`);
    }
  };

  return {
    ...stores,
    system: running,
    url: running.url,
    api,
    ok,
    outboxDir,
    codeSentTo: codeFor,
    verifyContacts,
    signUp: async (body) => {
      await verifyContacts(body);
      await ok('POST', body.agent_code === undefined ? '/api/v1/users/sign-up' : '/api/v1/agents/sign-up', { body });
      return body;
    },
    signIn: async (userName, password) => (await ok<{ access_token: string }>('POST', '/api/v1/users/sign-in', { body: { userName, password } })).access_token,
    stop: async () => {
      let stopError: unknown;
      await running.stop().catch((err: unknown) => (stopError = err));
      await cleanUp();
      if (stopError) throw stopError instanceof Error ? stopError : new Error(`stopping the system failed: ${JSON.stringify(stopError)}`);
    },
  };
}
