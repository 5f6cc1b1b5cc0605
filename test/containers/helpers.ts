/**
 * What the container tests share: a project's settings on a temporary DATA_DIR, a client of the containerized
 * gateway (sign-up through the local outbox, calls that must answer 200), and waiting for a condition.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateDevKeyPair } from '../../shared/src/core/auth';
import { containersSettings, type ContainersSettings } from '../../scripts/lib/containers';

export const PASSWORD = 'Passw0rd!';

export function settingsFor(label: string, env: NodeJS.ProcessEnv, port: number): { settings: ContainersSettings; dataDir: string } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `binzip-containers-${label}-`));
  const log = (line: string) => process.stdout.write(`[containers ${label}] ${line}\n`);
  const settings = containersSettings(
    {
      CONTAINERS_LOCAL_BASES: process.env.CONTAINERS_LOCAL_BASES ?? '1',
      IMAGE_TAG: process.env.IMAGE_TAG,
      REVISION: process.env.REVISION,
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      COMPOSE_PROJECT_NAME: `binzip-test-${label}-${process.pid}`,
      PORT: String(port),
      SHUTDOWN_DRAIN_MS: '3000',
      ...env,
    },
    generateDevKeyPair(),
    dataDir,
    log,
  );
  return { settings, dataDir };
}

export function codeSentTo(outboxDir: string, to: string): string | undefined {
  try {
    const lines = readFileSync(path.join(outboxDir, 'messages.jsonl'), 'utf8').trim().split('\n');
    const message = lines
      .map((l) => JSON.parse(l) as { to: string; text: string })
      .reverse()
      .find((m) => m.to === to);
    return message ? /\b(\d{4,8})\b/.exec(message.text)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface Answer<T> {
  status: number;
  body: { code: string; message: string; data?: T };
}

/** A client of the gateway at `url()`; codes are read from the local senders' outbox under `dataDir()`. */
export function gatewayClient(url: () => string, dataDir: () => string) {
  const call = async <T = unknown>(method: string, urlPath: string, body?: unknown, token?: string): Promise<Answer<T>> => {
    const res = await fetch(`${url()}${urlPath}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, body: (await res.json()) as Answer<T>['body'] };
  };
  const ok = async <T = unknown>(method: string, urlPath: string, body?: unknown, token?: string): Promise<T> => {
    const res = await call<T>(method, urlPath, body, token);
    if (res.status !== 200) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as T;
  };
  const signUp = async (userName: string, phone: string, email: string, digits = 6): Promise<string> => {
    const outbox = path.join(dataDir(), 'outbox');
    for (const [channel, field, to] of [
      ['sms', 'phone_num', phone],
      ['email', 'email', email],
    ]) {
      await ok('POST', `/api/v1/users/send/${channel}`, { [field]: to });
      const code = await eventually(() => codeSentTo(outbox, to), 15_000);
      expect(code).toMatch(new RegExp(`^\\d{${digits}}$`));
      expect(await ok('POST', `/api/v1/users/check/${channel}`, { [field]: to, code })).toBe(true);
    }
    await ok('POST', '/api/v1/users/sign-up', {
      userName,
      password: PASSWORD,
      nick_name: userName.slice(0, 8),
      phone_num: phone,
      age: '20대',
      join_paths: ['검색'],
      terms: ['SERVICE_USED_AGREE'],
      email,
    });
    return (await ok<{ access_token: string }>('POST', '/api/v1/users/sign-in', { userName, password: PASSWORD })).access_token;
  };
  return { call, ok, signUp };
}
