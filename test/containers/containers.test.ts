/**
 * The whole system in containers on podman (`npm run containers:up`, docs/containers.md): the images build, every
 * process runs in its own container on one network beside NATS and the store, health checks turn healthy, a member
 * signs up, writes a post, another comments and the author reads the notification through the containerized
 * gateway; settings and the outbox cross into and out of the containers; a second `up` starts no second copy;
 * SIGTERM drains; every image's version label and /health agree with its package.json; a bad setting stops `up`
 * with one line naming it and `down` cleans up after it; no engine, or a base image that cannot be had, is one clear
 * message at once.
 * Run alone with `npm run test:containers` (jest.config.js leaves test/containers out of `npm test` otherwise).
 * Skipped (with a message) where podman or docker-compose is missing, except under CI=true. The first run builds the
 * images (several minutes on a small machine); later runs reuse them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { ContainersError, containerLogTail, containersDown, containersUp, projectContainers, run, type ContainersSettings } from '../../scripts/lib/containers';
import { freePort } from '../../scripts/lib/server-process';
import { describeWithTools } from '../support/deploy';
import { eventually, gatewayClient, settingsFor } from './helpers';

jest.setTimeout(60 * 60_000);

const PROCESS_NAMES = ['gateway', 'accounts', 'community', 'houses', 'records', 'notifications'];

describeWithTools('the system in containers (podman, docker-compose)', ['podman', 'docker-compose'], () => {
  let settings: ContainersSettings;
  let dataDir: string;
  let url: string;

  const { ok, signUp: signUpWith } = gatewayClient(
    () => url,
    () => dataDir,
  );
  // VERIFICATION_CODE_DIGITS=8 was handed to the accounts container.
  const signUp = (userName: string, phone: string, email: string) => signUpWith(userName, phone, email, 8);

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

  it("every image carries its process's version: the OCI label and /health both say services/<name>/package.json's", async () => {
    for (const name of PROCESS_NAMES) {
      const version = (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'services', name, 'package.json'), 'utf8')) as { version: string }).version;
      const label = await run('podman', [
        'image',
        'inspect',
        '--format',
        '{{index .Labels "org.opencontainers.image.version"}}',
        `binzip/${name}:${settings.imageTag}`,
      ]);
      expect({ name, label: label.stdout.trim() }).toEqual({ name, label: version });
      expect({ name, health: await healthVersion(`${settings.project}_${name}_1`) }).toEqual({ name, health: version });
    }
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

/** `version` in /health of a process, asked inside its container (services are not published on the host). */
async function healthVersion(container: string): Promise<string | undefined> {
  const script = "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then((r)=>r.json()).then((b)=>console.log(JSON.stringify(b.data)))";
  const res = await run('podman', ['exec', container, 'node', '-e', script]);
  if (res.code !== 0) throw new Error(`${container}: ${res.stderr}`);
  return (JSON.parse(res.stdout) as { version?: string }).version;
}

describeWithTools('containers:up without an engine or an image', ['podman', 'docker-compose'], () => {
  it('without podman on the PATH: one clear line, at once', () => {
    const dataDir = settingsFor('noengine', {}, 1).dataDir;
    try {
      // Only node on the PATH (a folder of its own: node's may hold podman too): no podman, no docker-compose, no git.
      const bin = path.join(dataDir, 'bin');
      mkdirSync(bin);
      symlinkSync(process.execPath, path.join(bin, 'node'));
      const started = Date.now();
      let out = '';
      try {
        execFileSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/containers.ts', 'up'], {
          cwd: path.join(__dirname, '..', '..'),
          env: { PATH: bin, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '18099' },
          encoding: 'utf8',
          stdio: 'pipe',
          timeout: 60_000,
        });
      } catch (err) {
        const e = err as { status: number; stdout: string; stderr: string };
        expect(e.status).toBe(1);
        out = e.stderr;
      }
      expect(out.trim()).toMatch(/^\[containers\] podman is not installed: `apt-get install -y podman`/);
      expect(out.trim().split('\n')).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('with a base image neither here nor pullable: a clear message, no hang, nothing started', async () => {
    const { settings, dataDir } = settingsFor(
      'noimage',
      { CONTAINERS_LOCAL_BASES: '0', NODE_IMAGE: 'localhost:1/binzip-missing/node:0' },
      await freePort('127.0.0.1'),
    );
    try {
      const started = Date.now();
      const failure = await containersUp(settings).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failure).toBeInstanceOf(ContainersError);
      expect(failure?.message).toMatch(/^image localhost:1\/binzip-missing\/node:0 is not here and could not be pulled .*CONTAINERS_LOCAL_BASES=1/);
      expect(Date.now() - started).toBeLessThan(150_000);
      expect(await projectContainers(settings.project)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
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
