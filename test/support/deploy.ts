/**
 * Renders the deployment descriptions this repository ships (docker compose with `.env.example`, the Kustomize
 * overlays) with the operators' own tools, and turns each into what every process would find in its
 * environment, so tests can parse that with the process's own config schema.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { configSchema as accountsConfig } from '../../services/accounts/src/config';
import { configSchema as communityConfig } from '../../services/community/src/config';
import { configSchema as gatewayConfig } from '../../services/gateway/src/config';
import { configSchema as housesConfig } from '../../services/houses/src/config';
import { configSchema as notificationsConfig } from '../../services/notifications/src/config';
import { configSchema as recordsConfig } from '../../services/records/src/config';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export const PROCESSES = ['gateway', 'accounts', 'community', 'houses', 'records', 'notifications'] as const;
export type ProcessName = (typeof PROCESSES)[number];
export type Environment = Record<string, string>;

/** Each process's own config schema: what it parses its environment with at start-up. */
export const CONFIG_SCHEMAS: Record<ProcessName, z.ZodType> = {
  gateway: gatewayConfig,
  accounts: accountsConfig,
  community: communityConfig,
  houses: housesConfig,
  records: recordsConfig,
  notifications: notificationsConfig,
};

/** The problems a process would list before refusing to start (empty: it starts). */
export function configProblems(process: ProcessName, env: Environment): string[] {
  const result = CONFIG_SCHEMAS[process].safeParse(env);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const TOOL_HINT = 'Debian: `apt-get install -y docker-compose kubectl prometheus` (.ci/run installs them)';

/** A command-line tool on the PATH, or undefined (the caller skips, except under CI=true where it fails). */
export function findTool(name: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** `describe` when every tool is installed; a printed skip otherwise, and a failure under CI=true. */
export function describeWithTools(name: string, tools: string[], body: () => void): void {
  const missing = tools.filter((tool) => !findTool(tool));
  if (missing.length === 0) {
    describe(name, body);
    return;
  }
  const message = `${name}: skipped, ${missing.join(', ')} not installed (${TOOL_HINT}); under CI=true this is a failure`;
  if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs ${missing.join(', ')} under CI`, () => {
        throw new Error(message);
      });
    });
    return;
  }
  console.warn(message);
  describe.skip(name, body);
}

/**
 * The environment the image itself sets (the Dockerfile's last stage `ENV` lines, `${SERVICE}` filled in):
 * compose and the manifests add theirs on top.
 */
export function imageEnvironment(service: ProcessName): Environment {
  const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lastStage = dockerfile.split(/^FROM .*$/m).pop() ?? '';
  const env: Environment = {};
  for (const line of lastStage.split('\n')) {
    const match = /^ENV\s+(.*)$/.exec(line.trim());
    if (!match) continue;
    for (const pair of match[1].split(/\s+/)) {
      const [key, ...rest] = pair.split('=');
      env[key] = rest.join('=').replace(/\$\{SERVICE\}/g, service);
    }
  }
  return env;
}

/** What `npm run keys -- <args>` prints, as an operator appends it to `.env`. */
export function generatedKeyLines(...args: string[]): string {
  return execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), [path.join(REPO_ROOT, 'scripts', 'keys.ts'), ...args], { encoding: 'utf8' });
}

export interface ComposeService {
  build?: { args?: Record<string, string> };
  environment?: Record<string, string | number | boolean | null>;
  ports?: unknown[];
  stop_grace_period?: string;
  /** Set on a process's extra copy (`gateway-2`, profile `replicas`), started only when asked for. */
  profiles?: string[];
}

/**
 * `docker-compose config` of the repository's compose file with `.env.example` plus a generated key pair
 * (the README's `cp .env.example .env && npm run keys >> .env`), in a clean environment so nothing of the
 * test's own environment is interpolated.
 */
export function renderCompose(extraEnvLines = ''): Record<string, ComposeService> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'binzip-compose-'));
  try {
    const envFile = path.join(dir, '.env');
    writeFileSync(envFile, `${readFileSync(path.join(REPO_ROOT, '.env.example'), 'utf8')}\n${generatedKeyLines()}${extraEnvLines}`);
    const rendered = execFileSync(
      'docker-compose',
      ['--project-directory', REPO_ROOT, '-f', path.join(REPO_ROOT, 'docker-compose.yml'), '--env-file', envFile, 'config'],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      },
    );
    return (parseYaml(rendered) as { services: Record<string, ComposeService> }).services;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each process's environment under compose: the image's `ENV`, then the service's `environment`. */
export function composeEnvironments(services: Record<string, ComposeService>): Record<ProcessName, Environment> {
  const result = {} as Record<ProcessName, Environment>;
  for (const [name, service] of Object.entries(services)) {
    const process = service.build?.args?.SERVICE as ProcessName | undefined;
    // A copy under a profile (the second gateway) has its process's settings, said once in the file.
    if (!process || service.profiles?.length) continue;
    const env: Environment = { ...imageEnvironment(process) };
    for (const [key, value] of Object.entries(service.environment ?? {})) env[key] = value === null ? '' : String(value);
    result[process] = env;
    if (name !== process) throw new Error(`compose service ${name} builds ${process}`);
  }
  return result;
}

/** A Kubernetes object as `kubectl kustomize` prints it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export const KUSTOMIZE_ROOT = path.join(REPO_ROOT, 'deploy', 'kubernetes');
export const OVERLAYS = ['dev', 'production'] as const;

/** `kubectl kustomize deploy/kubernetes/overlays/<overlay>`: every object, parsed. */
export function renderOverlay(overlay: string): KubeObject[] {
  const rendered = execFileSync('kubectl', ['kustomize', path.join(KUSTOMIZE_ROOT, 'overlays', overlay)], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
  return parseAllDocuments(rendered)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string; optional?: boolean }; secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string }; prefix?: string }>;
}
interface Deployment extends KubeObject {
  spec: { template: { metadata?: { labels?: Record<string, string> }; spec: { containers: Container[] } } };
}

/** The string data of a ConfigMap or Secret (a Secret's `data` is base64). */
function objectData(object: KubeObject): Environment {
  const data: Environment = { ...((object.data as Environment | undefined) ?? {}) };
  if (object.kind === 'Secret') {
    for (const key of Object.keys(data)) data[key] = Buffer.from(data[key], 'base64').toString('utf8');
    Object.assign(data, (object.stringData as Environment | undefined) ?? {});
  }
  return data;
}

/** The Deployments of the six processes, by the `app.kubernetes.io/component` label. */
export function processDeployments(objects: KubeObject[]): Map<ProcessName, Deployment> {
  const result = new Map<ProcessName, Deployment>();
  for (const object of objects) {
    if (object.kind !== 'Deployment') continue;
    const component = object.metadata.labels?.['app.kubernetes.io/component'] as ProcessName | undefined;
    if (component && PROCESSES.includes(component)) result.set(component, object as Deployment);
  }
  return result;
}

/**
 * Each process's environment in a pod: the image's `ENV`, then `envFrom` in order, then `env` (Kubernetes'
 * own precedence). `extra` holds objects an operator creates beside the overlay (the JWT key Secret); a
 * reference to an object found nowhere fails, as the kubelet would refuse to start the container.
 */
export function podEnvironments(objects: KubeObject[], extra: KubeObject[] = []): Record<ProcessName, Environment> {
  const sources = new Map<string, Environment>();
  for (const object of [...objects, ...extra]) {
    if (object.kind === 'ConfigMap' || object.kind === 'Secret') sources.set(`${object.kind}/${object.metadata.name}`, objectData(object));
  }
  const lookUp = (kind: 'ConfigMap' | 'Secret', name: string, optional = false): Environment => {
    const found = sources.get(`${kind}/${name}`);
    // An optional reference to an object nobody made leaves the variable unset, as the kubelet does.
    if (!found && optional) return {};
    if (!found) throw new Error(`${kind} ${name} is referenced but neither rendered nor created by the runbook`);
    return found;
  };
  const result = {} as Record<ProcessName, Environment>;
  for (const [process, deployment] of processDeployments(objects)) {
    const container = deployment.spec.template.spec.containers.find((candidate) => candidate.name === process);
    if (!container) throw new Error(`Deployment ${deployment.metadata.name} has no container named ${process}`);
    const env: Environment = { ...imageEnvironment(process) };
    for (const source of container.envFrom ?? []) {
      const data = source.configMapRef ? lookUp('ConfigMap', source.configMapRef.name) : lookUp('Secret', source.secretRef?.name ?? '');
      for (const [key, value] of Object.entries(data)) env[`${source.prefix ?? ''}${key}`] = value;
    }
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.configMapKeyRef ?? variable.valueFrom?.secretKeyRef;
      if (ref) {
        const value = lookUp(variable.valueFrom?.configMapKeyRef ? 'ConfigMap' : 'Secret', ref.name, ref.optional)[ref.key];
        if (value === undefined && ref.optional) continue;
        if (value === undefined) throw new Error(`${process}: ${variable.name} refers to missing key ${ref.key} of ${ref.name}`);
        env[variable.name] = value;
      } else {
        env[variable.name] = variable.value ?? '';
      }
    }
    result[process] = env;
  }
  return result;
}
