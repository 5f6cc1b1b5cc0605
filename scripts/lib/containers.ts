/**
 * The whole system in containers on podman (`npm run containers:up` / `containers:down`, docs/containers.md): the
 * project's own docker-compose.yml, run by the `docker-compose` client against podman's Docker-compatible API
 * (`podman system service` on a private socket, started for the one command and stopped after it). Images that are
 * missing are built first with `podman build` (the six processes from the one Dockerfile; with local bases, NATS
 * and the dev-mongo stand-in from scripts/containers/). Used by scripts/containers.ts and the container tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildDevMongoJar } from './mongo';
import { exportCommit, previousRelease, serviceVersion } from './release';
import { REPO_ROOT, SERVICES } from './system';

/** The gateway and the services (the one list: `SERVICES`, scripts/lib/system.ts, from the gateway's `SERVICE_PORTS`). */
export const PROCESSES = ['gateway', ...SERVICES] as const;
export type ProcessName = (typeof PROCESSES)[number];

/** A failure the user can act on: printed as it is, without a stack. */
export class ContainersError extends Error {}

export interface ContainersSettings {
  /** Compose project name: every container, the network and the volumes carry it (COMPOSE_PROJECT_NAME, default binzip). */
  project: string;
  /** The host port the gateway is published on (PORT, default 8080). */
  port: number;
  /**
   * Copies (issue 37): REPLICAS of every service and two gateways when it is 2 or more (the second published on
   * GATEWAY_2_PORT, default PORT+1), HOUSES_INSTANCES of houses (default REPLICAS), NATS_NODES NATS nodes (1 or 3;
   * with 3, docker-compose.nats-cluster.yml and every stream kept on all three). Each copy is a container of its
   * own with its own address; the gateway finds a service's copies by its name.
   */
  scale: { replicas: number; houses: number; natsNodes: number; gateway2Port: number };
  /** Where the outbox, the keys and this tool's files live (DATA_DIR, default .data). */
  dataDir: string;
  /** Local stand-ins for images no registry can give (CONTAINERS_LOCAL_BASES=1): Node base, NATS, dev-mongo. */
  localBases: boolean;
  /** `<prefix>/<process>:<tag>` (IMAGE_PREFIX, IMAGE_TAG). */
  imagePrefix: string;
  imageTag: string;
  /** The commit the images are built from, their `org.opencontainers.image.revision` (REVISION, default the checked-out commit). */
  revision: string;
  nodeImage: string;
  natsImage: string;
  mongoImage: string;
  devMongoImage: string;
  debianImage: string;
  /** JWT key pair handed to the processes (compose reads JWT_PUBLIC_KEY / JWT_PRIVATE_KEY). */
  keys: { publicKey: string; privateKey: string };
  /** The environment the settings come from. */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

const DOCKERFILE_NODE = /^ARG NODE_IMAGE=node:([0-9.]+)-bookworm-slim$/m;

export function nodeVersionOfDockerfile(): string {
  const match = DOCKERFILE_NODE.exec(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  if (!match) throw new ContainersError('the Dockerfile has no "ARG NODE_IMAGE=node:<version>-bookworm-slim" line');
  return match[1];
}

/** The checked-out commit (short), `-dirty` with changes not committed: an image's revision label. */
export function gitRevision(): string {
  const res = spawnSync('git', ['describe', '--always', '--dirty', '--abbrev=9', '--match', 'no-tag-is-named-so'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() : 'unknown';
}

/** The settings of containers:up / down from an environment (the same variables `npm start` reads, and a few of its own). */
export function containersSettings(env: NodeJS.ProcessEnv, keys: ContainersSettings['keys'], dataDir: string, log: (line: string) => void): ContainersSettings {
  const localBases = env.CONTAINERS_LOCAL_BASES === '1' || env.CONTAINERS_LOCAL_BASES === 'true';
  const nodeVersion = nodeVersionOfDockerfile();
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ContainersError(`PORT must be a port number (1-65535), not "${env.PORT}"`);
  const count = (name: string, fallback: number, allowed: (n: number) => boolean, what: string): number => {
    const value = env[name]?.trim() ? Number(env[name]) : fallback;
    if (!Number.isInteger(value) || !allowed(value)) throw new ContainersError(`${name} must be ${what}, not "${env[name]}"`);
    return value;
  };
  const replicas = count('REPLICAS', 1, (n) => n >= 1 && n <= 5, 'a whole number from 1 to 5');
  const scale = {
    replicas,
    houses: count('HOUSES_INSTANCES', replicas, (n) => n >= 1 && n <= 5, 'a whole number from 1 to 5'),
    // An odd number: JetStream's cluster needs a majority of its nodes.
    natsNodes: count('NATS_NODES', 1, (n) => n === 1 || n === 3, '1 or 3'),
    gateway2Port: count('GATEWAY_2_PORT', port + 1, (n) => n >= 1 && n <= 65535 && n !== port, 'a port number other than PORT'),
  };
  const project = env.COMPOSE_PROJECT_NAME || 'binzip';
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(project)) throw new ContainersError(`COMPOSE_PROJECT_NAME must be lower-case letters, digits, - and _, not "${project}"`);
  return {
    project,
    port,
    scale,
    dataDir,
    localBases,
    imagePrefix: env.IMAGE_PREFIX || 'binzip',
    imageTag: env.IMAGE_TAG || 'latest',
    revision: env.REVISION || gitRevision(),
    nodeImage: env.NODE_IMAGE || (localBases ? `binzip-local/node:${nodeVersion}-bookworm-slim` : `node:${nodeVersion}-bookworm-slim`),
    natsImage: env.NATS_IMAGE || (localBases ? 'binzip-local/nats:latest' : 'nats:2.10-alpine'),
    mongoImage: env.MONGO_IMAGE || 'mongo:7',
    devMongoImage: env.DEV_MONGO_IMAGE || 'binzip-local/dev-mongo:latest',
    debianImage: env.DEBIAN_IMAGE || 'binzip-local/debian:bookworm',
    keys,
    env,
    log,
  };
}

export function imageName(s: ContainersSettings, name: ProcessName): string {
  return `${s.imagePrefix}/${name}:${s.imageTag}`;
}

/** podman with this project's engine settings (scripts/containers/containers.conf: limits, runc). */
export function engineEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const conf = env.PODMAN_CONTAINERS_CONF ?? path.join(REPO_ROOT, 'scripts', 'containers', 'containers.conf');
  const out = { ...env };
  if (conf) out.CONTAINERS_CONF = conf;
  else delete out.CONTAINERS_CONF;
  return out;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a missing program is a ContainersError naming it. */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; logFile?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO_ROOT, env: opts.env ?? engineEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const log = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
    let stdout = '';
    let stderr = '';
    const keep = (text: string, chunk: Buffer) => (text + chunk.toString('utf8')).slice(-200_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout = keep(stdout, c);
      log?.write(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr = keep(stderr, c);
      log?.write(c);
    });
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      log?.end();
      reject(err.code === 'ENOENT' ? new ContainersError(missingProgram(cmd)) : err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      log?.end();
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

function missingProgram(cmd: string): string {
  if (cmd === 'podman') return 'podman is not installed: `apt-get install -y podman` (Debian), or run docker-compose.yml with Docker (README, "Containers")';
  if (cmd === 'docker-compose')
    return 'docker-compose is not installed: `apt-get install -y docker-compose` (it drives podman through its Docker-compatible API)';
  return `${cmd} is not installed`;
}

async function podman(args: string[], opts: { logFile?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return run('podman', args, { env: engineEnv(), ...opts });
}

export async function checkEngine(): Promise<string> {
  const version = await podman(['--version']);
  if (version.code !== 0) throw new ContainersError(`podman does not run: ${version.stderr.trim() || version.stdout.trim()}`);
  const compose = await run('docker-compose', ['version', '--short']);
  if (compose.code !== 0) throw new ContainersError(`docker-compose does not run: ${compose.stderr.trim()}`);
  return `${version.stdout.trim()}, docker-compose ${compose.stdout.trim()}`;
}

export async function imageExists(name: string): Promise<boolean> {
  return (await podman(['image', 'exists', name])).code === 0;
}

/** The commit an image was built from (its `org.opencontainers.image.revision` label); undefined without the image. */
export async function imageRevision(name: string): Promise<string | undefined> {
  const res = await podman(['image', 'inspect', '--format', '{{ index .Labels "org.opencontainers.image.revision" }}', name]);
  return res.code === 0 ? res.stdout.trim().split('\n')[0] : undefined;
}

function containersDir(s: ContainersSettings): string {
  const dir = path.join(s.dataDir, 'containers');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Builds one image with `podman build` (docker format: HEALTHCHECK kept); its output goes to a log file. */
async function buildImage(s: ContainersSettings, name: string, args: string[], what: string, cwd = REPO_ROOT): Promise<void> {
  const logFile = path.join(containersDir(s), `build-${name.replace(/[^a-z0-9.-]+/gi, '_')}.log`);
  fs.writeFileSync(logFile, '');
  s.log(`building ${name} (${what}; log ${path.relative(process.cwd(), logFile)}) …`);
  const started = Date.now();
  // --network host: `npm ci` and apt-get reach their registries from the build (the machine's network).
  const res = await run('podman', ['build', '--format', 'docker', '--network', 'host', '-t', name, ...args], { env: engineEnv(), logFile, cwd });
  if (res.code !== 0) {
    const tail = (res.stdout + res.stderr).trim().split('\n').slice(-15).join('\n');
    throw new ContainersError(`building ${name} failed (log ${logFile}):\n${tail}`);
  }
  s.log(`built ${name} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** An image that is neither here nor pullable is a clear error, not compose hanging on a pull. */
async function ensurePulled(s: ContainersSettings, name: string): Promise<void> {
  if (await imageExists(name)) return;
  s.log(`pulling ${name} …`);
  const res = await podman(['pull', '--quiet', name], { timeoutMs: Number(s.env.CONTAINERS_PULL_TIMEOUT_MS ?? 120_000) });
  if (res.code !== 0) {
    throw new ContainersError(
      `image ${name} is not here and could not be pulled (${res.stderr.trim().split('\n').pop() ?? `exit ${res.code}`}); ` +
        'with no registry, CONTAINERS_LOCAL_BASES=1 builds local stand-ins (docs/containers.md)',
    );
  }
}

/**
 * Builds every image that is missing (all of the project's with `rebuild`). `source` builds the processes from
 * another source tree (a release's, exported by scripts/lib/release.ts), `revision` naming its commit.
 */
export async function ensureImages(
  s: ContainersSettings,
  options: { rebuild?: boolean; processes?: readonly ProcessName[]; source?: string; revision?: string } = {},
): Promise<void> {
  const missing = async (name: string) => options.rebuild || !(await imageExists(name));
  if (s.localBases) {
    if (!(await imageExists(s.nodeImage)) || !(await imageExists(s.debianImage))) {
      s.log('making the local Debian and Node bases (scripts/containers/make-bases.sh) …');
      const res = await run('bash', [path.join(REPO_ROOT, 'scripts', 'containers', 'make-bases.sh')], {
        env: engineEnv({ ...process.env, DEBIAN_IMAGE: s.debianImage, NODE_BASE_IMAGE: s.nodeImage }),
        logFile: path.join(containersDir(s), 'make-bases.log'),
      });
      if (res.code !== 0) throw new ContainersError(`making the local bases failed:\n${(res.stdout + res.stderr).trim().split('\n').slice(-10).join('\n')}`);
    }
    if (!s.env.NATS_IMAGE && (await missing(s.natsImage))) {
      await buildImage(
        s,
        s.natsImage,
        ['-f', 'scripts/containers/nats.Containerfile', '--build-arg', `DEBIAN_IMAGE=${s.debianImage}`, 'scripts/containers'],
        "Debian's nats-server",
      );
    }
    if (await missing(s.devMongoImage)) {
      await buildDevMongoJar({ log: s.log });
      await buildImage(
        s,
        s.devMongoImage,
        [
          '-f',
          path.join(REPO_ROOT, 'scripts/containers/dev-mongo.Containerfile'),
          '--build-arg',
          `DEBIAN_IMAGE=${s.debianImage}`,
          path.join(REPO_ROOT, 'tools/dev-mongo'),
        ],
        "the MongoDB-protocol stand-in on Debian's JRE",
      );
    }
  } else {
    await ensurePulled(s, s.nodeImage);
    await ensurePulled(s, s.natsImage);
    await ensurePulled(s, s.mongoImage);
  }
  for (const name of options.processes ?? PROCESSES) {
    const image = imageName(s, name);
    const revision = options.revision ?? s.revision;
    // An image of another commit, or of uncommitted changes, is not this tree's: it is built again (on the layer
    // cache, so what did not change is not redone). Reusing any image by its name had CI test whatever the
    // machine built last.
    if (!options.rebuild && !revision.endsWith('-dirty') && (await imageRevision(image)) === revision) continue;
    // The label's version is the package.json's, as /health's is (one source: scripts/lib/release.ts).
    const version = serviceVersion(name, options.source);
    await buildImage(
      s,
      image,
      [
        '--build-arg',
        `NODE_IMAGE=${s.nodeImage}`,
        '--build-arg',
        `SERVICE=${name}`,
        '--build-arg',
        `VERSION=${version}`,
        '--build-arg',
        `REVISION=${revision}`,
        '.',
      ],
      `${name} ${version} (${revision}) on ${s.nodeImage}`,
      options.source ?? REPO_ROOT,
    );
  }
}

/**
 * The image of a process's previous tagged release (scripts/lib/release.ts), `<prefix>/<process>:<its version>`,
 * built from that commit's exported source (`git archive`) with the release's own Dockerfile, its version label
 * from the release's package.json. Returns the image name.
 */
export async function buildPreviousRelease(s: ContainersSettings, name: ProcessName): Promise<string> {
  const release = previousRelease(name);
  if (!release) throw new ContainersError(`${name} has no tagged release other than ${serviceVersion(name)} (git tag ${name}-v<version>; npm run release:tag)`);
  const image = `${s.imagePrefix}/${name}:${release.version}`;
  if (await imageExists(image)) return image;
  const source = path.join(s.dataDir, 'containers', `release-${release.tag}`);
  exportCommit(release.commit, source);
  await ensureImages({ ...s, imageTag: release.version }, { processes: [name], source, revision: release.commit.slice(0, 9) });
  return image;
}

/** `podman system service` on a private socket, for the compose client; stopped when the command is done. */
export async function startApiService(s: ContainersSettings): Promise<{ dockerHost: string; stop: () => Promise<void> }> {
  const socket = path.join('/tmp', `binzip-podman-${s.project}-${process.pid}.sock`);
  fs.rmSync(socket, { force: true });
  const child: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { env: engineEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4_000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const failed = new Promise<never>((_, reject) => child.once('error', (err) => reject(new ContainersError(missingProgram('podman') + ` (${err.message})`))));
  failed.catch(() => undefined);
  const deadline = Date.now() + 20_000;
  while (!fs.existsSync(socket)) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new ContainersError(`podman system service did not start: ${stderr.trim() || 'no socket after 20 s'}`);
    }
    await Promise.race([sleep(100), failed]);
  }
  return {
    dockerHost: `unix://${socket}`,
    stop: async () => {
      if (!exited) {
        child.kill('SIGTERM');
        await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5_000)]);
        if (!exited) child.kill('SIGKILL');
      }
      fs.rmSync(socket, { force: true });
    },
  };
}

/** KEY='value' lines of every setting a process reads that is set in `env`, except those compose itself controls. */
export function settingsFile(s: ContainersSettings): string {
  const sources = [
    ...fs.readdirSync(path.join(REPO_ROOT, 'shared', 'src', 'core')).map((f) => path.join(REPO_ROOT, 'shared', 'src', 'core', f)),
    ...PROCESSES.map((name) => path.join(REPO_ROOT, 'services', name, 'src', 'config.ts')),
  ].filter((f) => f.endsWith('.ts') && fs.existsSync(f));
  const names = new Set<string>();
  for (const file of sources) for (const m of fs.readFileSync(file, 'utf8').matchAll(/^\s+([A-Z][A-Z0-9_]{2,}): /gm)) names.add(m[1]);
  const controlled = new Set([
    'HOST',
    'PORT',
    'MONGODB_URI',
    'MONGODB_DB',
    'NATS_URL',
    'NATS_PREFIX',
    'JWT_PUBLIC_KEY',
    'JWT_PRIVATE_KEY',
    'DEV_OUTBOX_DIR',
    'ADMIN_CONSOLE_DIR',
  ]);
  const lines: string[] = [];
  for (const name of [...names].sort()) {
    const value = s.env[name];
    if (value === undefined || controlled.has(name) || name.endsWith('_URLS')) continue;
    if (/[\r\n]/.test(value)) throw new ContainersError(`${name} holds a line break: the containers take one-line settings`);
    lines.push(`${name}='${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
  }
  const file = path.join(containersDir(s), `${s.project}.settings.env`);
  fs.writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
  return file;
}

const NATS_CLUSTER_NODES = ['nats', 'nats-2', 'nats-3'];

/** The compose files and profiles of the settings (the NATS cluster's file, the second gateway's profile). */
function composeFiles(s: ContainersSettings): string[] {
  const files = ['-f', path.join(REPO_ROOT, 'docker-compose.yml')];
  if (s.localBases) files.push('-f', path.join(REPO_ROOT, 'docker-compose.dev-mongo.yml'));
  if (s.scale.natsNodes > 1) files.push('-f', path.join(REPO_ROOT, 'docker-compose.nats-cluster.yml'));
  if (s.scale.replicas > 1) files.push('--profile', 'replicas');
  return files;
}

/** `up`'s copies of each service (compose `--scale`); the gateway's second copy is a service of its own. */
function scaleArgs(s: ContainersSettings): string[] {
  const { replicas, houses } = s.scale;
  return PROCESSES.filter((name) => name !== 'gateway').flatMap((name) => ['--scale', `${name}=${name === 'houses' ? houses : replicas}`]);
}

/** Every gateway's address on the host: the first on PORT, the second (REPLICAS of 2 or more) on GATEWAY_2_PORT. */
export function gatewayUrls(s: ContainersSettings): string[] {
  return [s.port, ...(s.scale.replicas > 1 ? [s.scale.gateway2Port] : [])].map((port) => `http://127.0.0.1:${port}`);
}

function composeEnv(s: ContainersSettings, dockerHost: string, settings: string): NodeJS.ProcessEnv {
  const outbox = path.join(s.dataDir, 'outbox');
  return {
    ...s.env,
    DOCKER_HOST: dockerHost,
    COMPOSE_PROJECT_NAME: s.project,
    PORT: String(s.port),
    GATEWAY_2_PORT: String(s.scale.gateway2Port),
    ...(s.scale.natsNodes > 1
      ? { CONTAINERS_NATS_URL: NATS_CLUSTER_NODES.map((node) => `nats://${node}:4222`).join(','), NATS_REPLICAS: String(s.scale.natsNodes) }
      : {}),
    JWT_PUBLIC_KEY: s.keys.publicKey,
    JWT_PRIVATE_KEY: s.keys.privateKey,
    IMAGE_PREFIX: s.imagePrefix,
    IMAGE_TAG: s.imageTag,
    NATS_IMAGE: s.natsImage,
    MONGO_IMAGE: s.mongoImage,
    DEV_MONGO_IMAGE: s.devMongoImage,
    OUTBOX_DIR: outbox,
    SETTINGS_FILE: settings,
    COMPOSE_HTTP_TIMEOUT: '120',
    ...(s.localBases ? { CONTAINERS_MONGODB_URI: 'mongodb://mongo:27017/' } : {}),
  };
}

function pidFile(s: ContainersSettings): string {
  return path.join(containersDir(s), `${s.project}.healthchecks.pid`);
}

/** The health-check runner (scripts/containers/run-healthchecks.sh), detached; it outlives this command. */
function startHealthchecks(s: ContainersSettings): void {
  const file = pidFile(s);
  const pid = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : 0);
  if (pid > 0 && alive(pid)) return;
  const out = fs.openSync(path.join(containersDir(s), `${s.project}.healthchecks.log`), 'a');
  const child = spawn('bash', [path.join(REPO_ROOT, 'scripts', 'containers', 'run-healthchecks.sh'), s.project, file], {
    env: engineEnv(),
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  fs.closeSync(out);
}

function stopHealthchecks(s: ContainersSettings): void {
  const file = pidFile(s);
  if (!fs.existsSync(file)) return;
  const pid = Number(fs.readFileSync(file, 'utf8'));
  fs.rmSync(file, { force: true });
  if (pid > 0 && alive(pid)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone meanwhile */
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface ProjectContainer {
  name: string;
  service: string;
  status: string;
  exitCode: number;
  restarts: number;
  health: string;
}

interface InspectedContainer {
  Name: string;
  RestartCount?: number;
  State: { Status: string; ExitCode: number; Health?: { Status: string }; Healthcheck?: { Status: string } };
  Config: { Labels?: Record<string, string> };
}

/** `podman inspect` of containers, or undefined when its answer is not one JSON array. */
async function inspectContainers(ids: string[]): Promise<InspectedContainer[] | undefined> {
  const res = await podman(['inspect', '--type', 'container', ...ids]);
  if (res.code !== 0) return undefined;
  try {
    return JSON.parse(res.stdout) as InspectedContainer[];
  } catch {
    return undefined;
  }
}

export async function projectContainers(project: string): Promise<ProjectContainer[]> {
  const ids = await podman(['ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`]);
  const list = ids.stdout.split('\n').filter(Boolean);
  if (list.length === 0) return [];
  // While compose creates a dozen containers at once, podman 4.3 has answered an inspect of them all with more
  // than one JSON document; each is then asked alone, and one that is gone meanwhile is left out.
  const parsed = (await inspectContainers(list)) ?? (await Promise.all(list.map(async (id) => (await inspectContainers([id])) ?? []))).flat();
  return parsed.map((c) => ({
    name: c.Name.replace(/^\//, ''),
    service: c.Config.Labels?.['com.docker.compose.service'] ?? '',
    status: c.State.Status,
    exitCode: c.State.ExitCode,
    restarts: c.RestartCount ?? 0,
    health: c.State.Health?.Status ?? c.State.Healthcheck?.Status ?? '',
  }));
}

/** The last lines a container wrote (its reason for stopping, as a rule). */
export async function containerLogTail(name: string, lines = 3): Promise<string> {
  const res = await podman(['logs', '--tail', String(lines), name]);
  return (res.stdout + res.stderr).trim();
}

/** A process container that stopped with an error: its name and its last words. */
async function failedContainer(s: ContainersSettings): Promise<string | undefined> {
  for (const c of await projectContainers(s.project)) {
    const failed = c.restarts > 0 || ((c.status === 'exited' || c.status === 'stopped') && c.exitCode !== 0);
    if (failed)
      return `${c.name} stopped (exit ${c.exitCode}${c.restarts ? `, restarted ${c.restarts}×` : ''}): ${(await containerLogTail(c.name, 1)) || '(no output)'}`;
  }
  return undefined;
}

export interface UpResult {
  /** The first gateway's address. */
  url: string;
  /** Every gateway's address, the first on PORT. */
  urls: string[];
}

/**
 * Builds what is missing and starts the project (compose `up -d`; a second `up` leaves running containers as they
 * are), then waits for the gateway's /ready. Fails fast, naming the container and its last line, when a process
 * stops; the containers it started stay for `down` to remove.
 */
export async function containersUp(s: ContainersSettings, options: { rebuild?: boolean; readyTimeoutMs?: number } = {}): Promise<UpResult> {
  s.log(`engine: ${await checkEngine()}`);
  await ensureImages(s, { rebuild: options.rebuild });
  const outbox = path.join(s.dataDir, 'outbox');
  fs.mkdirSync(outbox, { recursive: true });
  // The processes run as uid 1000 (node); the outbox folder is theirs to write, as it is npm start's.
  fs.chmodSync(outbox, 0o777);
  const settings = settingsFile(s);
  const api = await startApiService(s);
  try {
    startHealthchecks(s);
    const env = composeEnv(s, api.dockerHost, settings);
    const logFile = path.join(containersDir(s), `${s.project}.compose.log`);
    fs.writeFileSync(logFile, '');
    s.log(`docker-compose up -d (project ${s.project}, log ${path.relative(process.cwd(), logFile)}) …`);
    let composeDone: RunResult | undefined;
    const compose = run('docker-compose', [...composeFiles(s), 'up', '-d', '--no-build', ...scaleArgs(s)], { env, logFile }).then((r) => (composeDone = r));
    compose.catch(() => undefined);
    const urls = gatewayUrls(s);
    const url = urls[0];
    const deadline = Date.now() + (options.readyTimeoutMs ?? Number(s.env.CONTAINERS_READY_TIMEOUT_MS ?? 300_000));
    for (;;) {
      if (composeDone && composeDone.code !== 0) {
        const failed = await failedContainer(s);
        throw new ContainersError(failed ?? `docker-compose up failed:\n${composeDone.stderr.trim().split('\n').slice(-8).join('\n')}`);
      }
      const failed = await failedContainer(s);
      if (failed) throw new ContainersError(failed);
      if (composeDone && (await Promise.all(urls.map(ready))).every(Boolean)) break;
      if (Date.now() > deadline)
        throw new ContainersError(
          `the gateway did not answer ${urls.map((u) => `${u}/ready`).join(' and ')} within ${(options.readyTimeoutMs ?? 300_000) / 1000} s (docker-compose log: ${logFile})`,
        );
      await sleep(1_000);
    }
    return { url, urls };
  } finally {
    await api.stop();
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(3_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Removes everything `up` started: containers, the network (and with `volumes`, the data volumes), the health-check runner. */
export async function containersDown(s: ContainersSettings, options: { volumes?: boolean } = {}): Promise<void> {
  await checkEngine();
  const api = await startApiService(s);
  try {
    const env = composeEnv(s, api.dockerHost, path.join(REPO_ROOT, 'deploy', 'settings.env.example'));
    const res = await run('docker-compose', [...composeFiles(s), 'down', '--remove-orphans', ...(options.volumes ? ['--volumes'] : [])], { env });
    if (res.code !== 0) s.log(`docker-compose down: ${res.stderr.trim().split('\n').slice(-3).join(' ')}`);
  } finally {
    await api.stop();
  }
  // Whatever compose did not know of (a container of a failed `up`, another set of compose files).
  const left = await projectContainers(s.project);
  if (left.length > 0) await podman(['rm', '-f', '-t', '30', ...left.map((c) => c.name)]);
  // And its network (and volumes) when compose stopped early: a failed `up` left them behind once.
  const label = `label=com.docker.compose.project=${s.project}`;
  const networks = (await podman(['network', 'ls', '-q', '--filter', label])).stdout.split('\n').filter(Boolean);
  if (networks.length > 0) await podman(['network', 'rm', '-f', ...networks]);
  if (options.volumes) {
    const volumes = (await podman(['volume', 'ls', '-q', '--filter', label])).stdout.split('\n').filter(Boolean);
    if (volumes.length > 0) await podman(['volume', 'rm', '-f', ...volumes]);
  }
  stopHealthchecks(s);
  const remaining = await projectContainers(s.project);
  if (remaining.length > 0) throw new ContainersError(`containers left: ${remaining.map((c) => c.name).join(', ')}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
