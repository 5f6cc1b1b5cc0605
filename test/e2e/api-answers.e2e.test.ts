/**
 * The answers every operation lists because of where it sits rather than what it does, provoked for real through
 * the gateway for each documented operation: the token errors, malformed input, the member write ceiling, and the
 * gateway's own faults (a body too large, too slow, or one too many at once; a service that does not answer in
 * time; a service that is down). Each answer must be the one the document lists, and `npm run api:examples`
 * records them as the document's examples.
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import { signAccessToken } from '@binzip/shared';
import { buildApiDocument, SERVICE_DOCUMENTS } from '../../scripts/lib/openapi';
import type { ServiceName } from '../../scripts/lib/system';
import { bearer, eventually } from '../support';
import { checkAgainstDocument, startE2eSystem, type E2eSystem } from '../support/e2e';

jest.setTimeout(600_000);

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const UPSTREAM_TIMEOUT_MS = 1_500;
const BODY_TIMEOUT_MS = 1_000;
const BODY_LIMIT_BYTES = 4_096;
const UPLOAD_BODY_LIMIT_BYTES = 16_384;

interface Operation {
  id: string;
  method: string;
  template: string;
  service: ServiceName;
  /** `<status> <code>` of every error it lists. */
  listed: Set<string>;
  access: 'public' | 'optional' | 'user' | 'admin';
  body?: 'application/json' | 'multipart/form-data';
  parameters: Json[];
  /** The JSON body's member names. */
  bodyMembers: string[];
}

function operations(): Operation[] {
  const serviceOf = new Map<string, ServiceName>();
  for (const [service, document] of Object.entries(SERVICE_DOCUMENTS)) {
    for (const item of Object.values((document().paths ?? {}) as Record<string, Record<string, Json>>)) {
      for (const op of Object.values(item)) serviceOf.set(String(op.operationId), service as ServiceName);
    }
  }
  const result: Operation[] = [];
  const document = buildApiDocument({});
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const resolved = (schema: Json | undefined) => (typeof schema?.$ref === 'string' ? schemas[schema.$ref.split('/').pop()!] : schema);
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      const listed = new Set<string>();
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const codes = ((response.content as Record<string, Json> | undefined)?.['application/json']?.schema as { properties?: { code?: { enum?: string[] } } })
          ?.properties?.code?.enum;
        for (const code of codes ?? []) listed.add(`${status} ${code}`);
      }
      const security = JSON.stringify(op.security);
      const content = Object.keys((op.requestBody as Json | undefined)?.content ?? {})[0] as Operation['body'];
      result.push({
        id: String(op.operationId),
        method: method.toUpperCase(),
        template,
        service: serviceOf.get(String(op.operationId))!,
        listed,
        access: listed.has('403 J0006') ? 'admin' : security.includes('{}') ? 'optional' : security.includes('bearerAuth') ? 'user' : 'public',
        body: content,
        parameters: (op.parameters ?? []) as Json[],
        bodyMembers: Object.keys(
          resolved(((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json)?.properties ?? {},
        ),
      });
    }
  }
  return result;
}

const ops = operations();
let e2e: E2eSystem;
let gateway: URL;

beforeAll(async () => {
  e2e = await startE2eSystem('apianswers', {
    services: ['accounts', 'community', 'houses', 'records', 'notifications'],
    env: {
      LOG_LEVEL: 'error',
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      UPLOAD_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
      UPLOAD_BODY_LIMIT_BYTES: String(UPLOAD_BODY_LIMIT_BYTES),
      BODY_READS_PER_ADDRESS: '1',
      CEILING_MEMBER_WRITES: '1',
      HEALTH_INTERVAL_MS: '600000',
    },
  });
  gateway = new URL(e2e.url);
});

afterAll(async () => {
  await e2e?.stop();
});

let nextMember = 9_000;
/** A member the projections know, new for each use (the write ceiling here is one write per member). */
async function freshMember(): Promise<number> {
  const id = nextMember++;
  await e2e.publishUser({ id, nick_name: `회원${id}` });
  return id;
}

const adminToken = () => bearer({ userId: 1, authority: 'ADMIN' });
async function tokenFor(op: Operation): Promise<string | undefined> {
  if (op.access === 'admin') return adminToken();
  if (op.access === 'user') return bearer({ userId: await freshMember() });
  return undefined;
}

/** The path with every parameter filled with a value of its type (an id nobody has). */
function pathOf(op: Operation, values: Record<string, string> = {}): string {
  return op.template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (values[name] !== undefined) return values[name];
    const schema = op.parameters.find((p) => p.name === name)?.schema as Json | undefined;
    if (Array.isArray(schema?.enum)) return String(schema.enum[0]);
    return schema?.type === 'integer' ? '999999' : 'x';
  });
}

interface RawRequest {
  token?: string;
  body?: string;
  contentType?: string;
  /** Sends the headers and only part of the body, then waits. */
  partial?: boolean;
  /** A loopback address of its own, so concurrent requests are not one client's (127.0.0.0/8 all reach the gateway). */
  from?: string;
}

/** One request on its own connection, answered by the gateway; checked against the document and recorded. */
function send(method: string, path: string, request: RawRequest = {}): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const req = http.request(
      {
        host: gateway.hostname,
        port: gateway.port,
        method,
        path,
        localAddress: request.from,
        agent: false,
        headers: {
          ...(request.token ? { Authorization: request.token } : {}),
          ...(body ? { 'Content-Type': request.contentType ?? 'application/json', 'Content-Length': String(body.length + (request.partial ? 1_000 : 0)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: { code: string };
          try {
            parsed = JSON.parse(text) as { code: string };
          } catch {
            return reject(new Error(`${method} ${path}: ${res.statusCode} answered no JSON: ${text.slice(0, 200)}`));
          }
          const requestBody = request.contentType === undefined && body && !request.partial ? safeJson(request.body!) : undefined;
          checkAgainstDocument(method, path, requestBody, res.statusCode!, parsed).then(() => resolve({ status: res.statusCode!, code: parsed.code }), reject);
        });
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    if (!request.partial) req.end();
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const listing = (op: Operation, answer: string) => op.listed.has(answer);
const outcome = (op: Operation, result: { status: number; code: string }) => `${op.id} ${result.status} ${result.code}`;

test('a token that is missing, forged, expired, malformed or a member where an administrator is needed', async () => {
  const { privateKey: otherKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const claims = { userId: 7, userName: 'user7', authority: 'USER' as const, userType: 'NONE' as const };
  const tokens: Record<string, string | undefined> = {
    '401 J0000': undefined,
    '401 J0001': `Bearer ${signAccessToken(claims, otherKey)}`,
    '401 J0002': bearer(claims, -60),
    '401 J0004': 'Bearer not-a-token',
    '403 J0006': bearer(claims),
  };
  const expected: string[] = [];
  const got: string[] = [];
  for (const op of ops) {
    for (const [answer, token] of Object.entries(tokens)) {
      if (!listing(op, answer)) continue;
      // Reissue reads its token from the body (and the refresh cookie, absent here); a member is fresh each time
      // because the write ceiling here is one write, counted before the administrator check.
      const body = op.bodyMembers.includes('access_token')
        ? JSON.stringify({ access_token: bearer(claims) })
        : op.body === 'application/json'
          ? '{}'
          : undefined;
      const sent = answer === '403 J0006' ? bearer({ userId: await freshMember() }) : token;
      expected.push(`${op.id} ${answer}`);
      got.push(outcome(op, await send(op.method, pathOf(op), { token: sent, body })));
    }
  }
  expect(got).toEqual(expected);
});

test('malformed input: a body that is not JSON, an id that is not a number, a page below zero', async () => {
  const expected: string[] = [];
  const got: string[] = [];
  for (const op of ops.filter((o) => listing(o, '400 C0002'))) {
    const token = await tokenFor(op);
    let request: { path: string; body?: string };
    if (op.body === 'application/json') request = { path: pathOf(op), body: '{"title": ' };
    else if (op.parameters.some((p) => p.in === 'path' && (p.schema as Json).type === 'integer')) {
      const name = String(op.parameters.find((p) => p.in === 'path' && (p.schema as Json).type === 'integer')!.name);
      request = { path: pathOf(op, { [name]: 'abc' }) };
    } else if (op.parameters.some((p) => p.in === 'query' && p.name === 'page')) request = { path: `${pathOf(op)}?page=-1` };
    else if (op.parameters.some((p) => p.in === 'query' && p.name === 'size')) request = { path: `${pathOf(op)}?size=-1` };
    else if (op.parameters.some((p) => p.in === 'path')) request = { path: pathOf(op, { [String(op.parameters.find((p) => p.in === 'path')!.name)]: '%20' }) };
    else continue;
    expected.push(`${op.id} 400 C0002`);
    got.push(outcome(op, await send(op.method, request.path, { token, body: request.body })));
  }
  expect(got).toEqual(expected);
});

/**
 * The member write ceiling counts a signed-in member's writes, on an administrator's operation too (it is counted
 * before the administrator check); uploads are refused first by the gateway below.
 */
const ceilingApplies = (op: Operation) => op.access !== 'public' && op.method !== 'GET' && listing(op, '429 C0004') && op.body !== 'multipart/form-data';

test('a member past the write ceiling (one write here) is told to wait', async () => {
  const expected: string[] = [];
  const got: string[] = [];
  for (const op of ops.filter(ceilingApplies)) {
    const token = bearer({ userId: await freshMember() });
    const request = { token, ...(op.body ? { body: '{}' } : {}) };
    await send(op.method, pathOf(op), request);
    expected.push(`${op.id} 429 C0004`);
    got.push(outcome(op, await send(op.method, pathOf(op), request)));
  }
  expect(got).toEqual(expected);
});

test('a body too large, one sent too slowly, and a second body from the same client meanwhile', async () => {
  const expected: string[] = [];
  const got: string[] = [];
  // The gateway reads and limits a body whatever the operation, so a bodiless one answers 413 to a large body too.
  for (const op of ops.filter((o) => listing(o, '413 C0002') || listing(o, '408 C0002'))) {
    const token = await tokenFor(op);
    const multipart = op.body === 'multipart/form-data';
    const contentType = multipart ? 'multipart/form-data; boundary=b' : undefined;
    const big = multipart
      ? `--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n${'a'.repeat(UPLOAD_BODY_LIMIT_BYTES * 2)}\r\n--b--\r\n`
      : JSON.stringify({ x: 'a'.repeat(BODY_LIMIT_BYTES * 2) });
    if (listing(op, '413 C0002')) {
      expected.push(`${op.id} 413 C0002`);
      got.push(outcome(op, await send(op.method, pathOf(op), { token, body: big, contentType })));
    }
    if (listing(op, '408 C0002')) {
      const slow = send(op.method, pathOf(op), { token, body: multipart ? '--b\r\n' : '{"a', contentType, partial: true });
      // Where the member ceiling does not apply, the 429 is the gateway's: one body at a time per client here.
      if (listing(op, '429 C0004') && !ceilingApplies(op)) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        expected.push(`${op.id} 429 C0004`);
        got.push(outcome(op, await send(op.method, pathOf(op), { token, body: '{}', contentType })));
      }
      expected.push(`${op.id} 408 C0002`);
      got.push(outcome(op, await slow));
    }
  }
  expect(got).toEqual(expected);
});

const byService = (service: ServiceName) => ops.filter((op) => op.service === service);
let address = 10;
const ownAddress = () => `127.0.0.${address++ % 250}`;

async function callAll(service: ServiceName, answer: string): Promise<{ expected: string[]; got: string[] }> {
  const listed = byService(service).filter((op) => listing(op, answer));
  const tokens = await Promise.all(listed.map((op) => tokenFor(op)));
  const got = await Promise.all(
    listed.map(async (op, i) =>
      outcome(op, await send(op.method, pathOf(op), { token: tokens[i], from: ownAddress(), ...(op.body === 'application/json' ? { body: '{}' } : {}) })),
    ),
  );
  return { expected: listed.map((op) => `${op.id} ${answer}`), got };
}

test('a service that does not answer in time (stopped with SIGSTOP) and a service that is down', async () => {
  for (const service of ['accounts', 'community', 'houses', 'records', 'notifications'] as const) {
    const [handle] = e2e.system.services[service]!;
    handle.child.kill('SIGSTOP');
    try {
      const { expected, got } = await callAll(service, '504 C0000');
      expect(got).toEqual(expected);
    } finally {
      handle.child.kill('SIGCONT');
    }
  }
  for (const service of ['accounts', 'community', 'houses', 'records', 'notifications'] as const) {
    const [handle] = e2e.system.services[service]!;
    await handle.stop();
    try {
      const { expected, got } = await callAll(service, '503 C0000');
      expect(got).toEqual(expected);
    } finally {
      await handle.restart();
    }
  }
});

describe('with the ordinary ceilings and an administrator in accounts', () => {
  const ADMIN = {
    userName: 'answersadmin',
    password: 'Adm1nPass!',
    nick_name: '운영자',
    phone_num: '01099990011',
    email: 'answersadmin@example.com',
    userType: 'WEB',
  };
  let system: E2eSystem;
  beforeAll(async () => {
    system = await startE2eSystem('apianswers2', {
      services: ['accounts', 'community', 'houses', 'records', 'notifications'],
      env: { LOG_LEVEL: 'error', BCRYPT_COST: '4', ADMIN_BOOTSTRAP: JSON.stringify([ADMIN]), OUTBOX_INTERVAL_MS: '200' },
    });
    gateway = new URL(system.url);
  });
  afterAll(async () => {
    await system?.stop();
  });

  test('a suspended member writing is refused, in accounts and in every service that learnt of the suspension', async () => {
    const admin = await system.signIn(ADMIN.userName, ADMIN.password);
    const member = await system.signUp({
      userName: 'suspendee1',
      password: 'Passw0rd!',
      nick_name: '정지될회원',
      phone_num: '01088880002',
      age: '20대',
      join_paths: ['검색'],
      terms: ['SERVICE_USED_AGREE'],
      email: 'suspendee1@example.com',
    });
    const token = await system.signIn(member.userName, member.password);
    const { id } = await system.ok<{ id: number }>('GET', '/api/v1/users', { token });
    await system.ok('PUT', `/api/v1/admin/users/${id}/suspension`, { token: admin, body: { reason: '운영 정책 위반' } });
    const expected: string[] = [];
    const got: string[] = [];
    for (const op of ops.filter((o) => listing(o, '403 U0012') && o.body !== 'multipart/form-data')) {
      expected.push(`${op.id} 403 U0012`);
      // The projections learn of the suspension from accounts' event, a moment later.
      const result = await eventually(async () => {
        const answer = await send(op.method, pathOf(op), { token, ...(op.body ? { body: '{}' } : {}) });
        return answer.code === 'U0012' ? answer : undefined;
      }, 10_000).catch(() => send(op.method, pathOf(op), { token, ...(op.body ? { body: '{}' } : {}) }));
      got.push(outcome(op, result));
    }
    expect(got).toEqual(expected);
  });
});
