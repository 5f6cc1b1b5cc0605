/**
 * `npm start`'s preflight (scripts/preflight.ts, run before the build): a taken port or a missing tool is one
 * line naming it and what to do, exit 1, no stack trace. Before it, a taken store port cost a minute and a Java
 * stack trace, and a missing nats-server or Java showed only after the build.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

jest.setTimeout(60_000);

async function listening(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function preflight(env: NodeJS.ProcessEnv) {
  const run = spawnSync(TSX, ['scripts/preflight.ts'], { cwd: ROOT, env, encoding: 'utf8' });
  return { status: run.status, lines: run.stderr.split('\n').filter(Boolean), stderr: run.stderr };
}

describe('npm start preflight', () => {
  it('names a taken gateway port and a taken store port, one line each, and stops', async () => {
    const gateway = await listening();
    const store = await listening();
    try {
      const run = preflight({ ...process.env, PORT: String(gateway.port), DEV_MONGO_PORT: String(store.port), MONGODB_URI: '' });
      expect(run.status).toBe(1);
      expect(run.lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^\\[start\\] port ${gateway.port} is taken: npm start needs it for the gateway`)),
          expect.stringMatching(new RegExp(`^\\[start\\] port ${store.port} is taken: npm start needs it for the local store`)),
        ]),
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await Promise.all([gateway.close(), store.close()]);
    }
  });

  it('names a missing nats-server and a missing Java with the package to install', async () => {
    const closed = await listening();
    await closed.close(); // a port nothing listens on: no NATS there
    // A PATH with node alone (the system's bin folder holds java and the rest).
    const bin = mkdtempSync(path.join(os.tmpdir(), 'preflight-bin-'));
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const env: NodeJS.ProcessEnv = { HOME: process.env.HOME, PATH: bin, DEV_NATS_PORT: String(closed.port), MONGODB_URI: '' };
    const run = preflight(env);
    rmSync(bin, { recursive: true, force: true });
    expect(run.status).toBe(1);
    expect(run.lines).toEqual(
      expect.arrayContaining([
        `[start] nats-server is not installed and no NATS runs on 127.0.0.1:${closed.port}: \`apt-get install -y nats-server\` (or set NATS_URL)`,
        expect.stringMatching(/^\[start\] Java is not installed .*apt-get install -y openjdk-17-jdk-headless maven/),
      ]),
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for nothing when the stores are given and found', async () => {
    const gateway = await listening();
    await gateway.close();
    const run = preflight({ ...process.env, PORT: String(gateway.port), MONGODB_URI: 'mongodb://127.0.0.1:1', NATS_URL: 'nats://127.0.0.1:1' });
    // Only the services' fixed ports could be taken (another `npm start` on this machine); nothing else is asked.
    expect(run.lines.filter((line) => !/^\[start\] port 70\d\d is taken/.test(line))).toEqual([]);
  });
});

describe('npm run keys writes clean .env lines', () => {
  const dotenvLine = /^(#.*|[A-Z_]+=(".*"|'.*'))$/;
  it('`npm run keys -- --out .env` appends only settings and comments (no npm banner), readable by its owner only', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keys-out-'));
    try {
      const file = path.join(dir, '.env');
      const run = spawnSync('npm', ['run', 'keys', '--', '--out', file], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status).toBe(0);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines.every((line) => dotenvLine.test(line))).toBe(true);
      expect(lines.filter((line) => !line.startsWith('#')).map((line) => line.split('=')[0])).toEqual([
        'JWT_PUBLIC_KEY',
        'JWT_PRIVATE_KEY',
        'REVOCATION_FEED_TOKEN',
        // A first key pair comes with a Web Push (VAPID) pair and its subject (issue 38).
        'VAPID_PUBLIC_KEY',
        'VAPID_PRIVATE_KEY',
        'VAPID_SUBJECT',
      ]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('`npm run -s keys` prints the same clean lines for `>> .env`', () => {
    const run = spawnSync('npm', ['run', '-s', 'keys'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split('\n')
        .every((line) => dotenvLine.test(line)),
    ).toBe(true);
  });
});

describe('what to install', () => {
  it("the README's list, its apt-get line and .ci/run's installs are the same packages", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const listed = /<!-- packages: ([^>]+) -->/.exec(readme)?.[1].trim().split(/\s+/);
    const aptLine = /^apt-get install -y (.+)$/m.exec(readme)?.[1].trim().split(/\s+/);
    const ci = /^PACKAGES=\(([^)]+)\)$/m
      .exec(readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8'))?.[1]
      .trim()
      .split(/\s+/);
    expect(listed).toBeDefined();
    expect(aptLine).toEqual(listed);
    expect(ci).toEqual(listed);
    for (const name of listed ?? []) expect(readme).toContain(name);
  });
});
