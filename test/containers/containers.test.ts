/**
 * The whole system in containers on podman (`npm run containers:up`, docs/containers.md): the images build, every
 * process runs in its own container on one network beside NATS and the store, health checks turn healthy, a member
 * signs up, writes a post, another comments and the author reads the notification through the containerized
 * gateway; settings and the outbox cross into and out of the containers; a second `up` starts no second copy;
 * SIGTERM drains; a bad setting stops `up` with one line naming it and `down` cleans up after it.
 * Run alone with `npm run test:containers` (jest.config.js leaves test/containers out of `npm test` otherwise).
 * Skipped (with a message) where podman or docker-compose is missing, except under CI=true. The first run builds the
 * images (several minutes on a small machine); later runs reuse them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateDevKeyPair } from '../../shared/src/core/auth';
import {
  ContainersError,
  containerLogTail,
  containersDown,
  containersSettings,
  containersUp,
  projectContainers,
  run,
  type ContainersSettings,
} from '../../scripts/lib/containers';
import { freePort } from '../../scripts/lib/server-process';
import { describeWithTools } from '../support/deploy';

jest.setTimeout(60 * 60_000);

const PASSWORD = 'Passw0rd!';
const PROCESS_NAMES = ['gateway', 'accounts', 'community', 'houses', 'records', 'notifications'];

function settingsFor(label: string, env: NodeJS.ProcessEnv, port: number): { settings: ContainersSettings; dataDir: string } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `binzip-containers-${label}-`));
  const log = (line: string) => process.stdout.write(`[containers ${label}] ${line}\n`);
  const settings = containersSettings(
    {
      CONTAINERS_LOCAL_BASES: process.env.CONTAINERS_LOCAL_BASES ?? '1',
      IMAGE_TAG: process.env.IMAGE_TAG,
      VERSION: process.env.VERSION,
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

function codeSentTo(outboxDir: string, to: string): string | undefined {
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

async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 500));
  }
}

describeWithTools('the system in containers (podman, docker-compose)', ['podman', 'docker-compose'], () => {
  let settings: ContainersSettings;
  let dataDir: string;
  let url: string;

  const call = async <T = unknown>(method: string, urlPath: string, body?: unknown, token?: string) => {
    const res = await fetch(`${url}${urlPath}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, body: (await res.json()) as { code: string; message: string; data?: T } };
  };
  const ok = async <T = unknown>(method: string, urlPath: string, body?: unknown, token?: string): Promise<T> => {
    const res = await call<T>(method, urlPath, body, token);
    if (res.status !== 200) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as T;
  };
  const outbox = () => path.join(dataDir, 'outbox');
  const signUp = async (userName: string, phone: string, email: string): Promise<string> => {
    for (const [channel, field, to] of [
      ['sms', 'phone_num', phone],
      ['email', 'email', email],
    ]) {
      await ok('POST', `/api/v1/users/send/${channel}`, { [field]: to });
      const code = await eventually(() => codeSentTo(outbox(), to), 15_000);
      // VERIFICATION_CODE_DIGITS=8 was handed to the accounts container.
      expect(code).toMatch(/^\d{8}$/);
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

  beforeAll(async () => {
    ({ settings, dataDir } = settingsFor('sys', { VERIFICATION_CODE_DIGITS: '8' }, await freePort('127.0.0.1')));
    ({ url } = await containersUp(settings));
  });

  afterAll(async () => {
    if (settings) await containersDown(settings, { volumes: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs every process in its own container beside NATS and the store, health checks healthy', async () => {
    const containers = await projectContainers(settings.project);
    const running = containers.filter((c) => c.status === 'running');
    expect(running.map((c) => c.service).sort()).toEqual([...PROCESS_NAMES, 'mongo', 'nats'].sort());
    expect(running.find((c) => c.service === 'mongo')?.name).toBe(`${settings.project}-dev-mongo`);
    // Something runs the checks where no systemd does (scripts/containers/run-healthchecks.sh).
    await eventually(
      async () => (await projectContainers(settings.project)).filter((c) => c.status === 'running').every((c) => c.health === 'healthy'),
      60_000,
    );
    // Every process image runs as the node user, not root.
    const who = await run('podman', ['exec', `${settings.project}_houses_1`, 'id', '-u']);
    expect(who.stdout.trim()).toBe('1000');
  });

  it('signs up, writes a post and a comment, and the author reads the notification through the containerized gateway', async () => {
    const suffix = String(process.pid % 10_000).padStart(4, '0');
    const author = await signUp(`ctauthor${suffix}`, `0101111${suffix}`, `author${suffix}@example.com`);
    const commenter = await signUp(`ctreader${suffix}`, `0102222${suffix}`, `reader${suffix}@example.com`);
    const boardId = await ok<number>(
      'POST',
      '/api/v1/boards',
      { title: '컨테이너에서 쓴 글', code: '<p>빈집 이야기</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
      author,
    );
    await ok('POST', '/api/v1/comments', { boardId, content: '컨테이너 댓글' }, commenter);
    const inbox = await eventually(async () => {
      const data = await ok<{ notifications: { content: Array<{ content?: string; boardId?: number }> } }>(
        'GET',
        '/api/v1/notifications?size=10',
        undefined,
        author,
      );
      return data.notifications.content.length > 0 ? data.notifications.content : undefined;
    });
    expect(inbox).toHaveLength(1);
    expect(JSON.stringify(inbox[0])).toContain(String(boardId));
  });

  it('a second up starts no second copy', async () => {
    const before = (await projectContainers(settings.project)).map((c) => c.name).sort();
    await containersUp(settings);
    expect((await projectContainers(settings.project)).map((c) => c.name).sort()).toEqual(before);
  });

  it('SIGTERM drains: the process reports not ready, keeps serving for SHUTDOWN_DRAIN_MS, then exits 0', async () => {
    const name = `${settings.project}_records_1`;
    const stopped = await run('podman', ['stop', '-t', '30', name]);
    expect(stopped.code).toBe(0);
    const [records] = (await projectContainers(settings.project)).filter((c) => c.name === name);
    expect(records).toMatchObject({ status: 'exited', exitCode: 0 });
    const logs = await containerLogTail(name, 20);
    expect(logs).toContain('shutting down');
    expect(logs).toContain('drain over');
    expect((await run('podman', ['start', name])).code).toBe(0);
  });
});

describeWithTools('containers:up with a bad setting', ['podman', 'docker-compose'], () => {
  it('stops at once with one line naming the setting, and down removes what it started', async () => {
    const { settings, dataDir } = settingsFor('bad', { VERIFICATION_CODE_DIGITS: 'many' }, await freePort('127.0.0.1'));
    try {
      const failure = await containersUp(settings, { readyTimeoutMs: 180_000 }).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failure).toBeInstanceOf(ContainersError);
      expect(failure?.message).toMatch(/accounts.*VERIFICATION_CODE_DIGITS/);
      expect(failure?.message.split('\n')).toHaveLength(1);
    } finally {
      await containersDown(settings, { volumes: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(await projectContainers(settings.project)).toEqual([]);
    const label = `label=com.docker.compose.project=${settings.project}`;
    expect((await run('podman', ['network', 'ls', '-q', '--filter', label])).stdout.trim()).toBe('');
    expect((await run('podman', ['volume', 'ls', '-q', '--filter', label])).stdout.trim()).toBe('');
  });
});
