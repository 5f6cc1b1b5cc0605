/**
 * The Kubernetes overlays meet an engine (issue 35, step 4): the rendered `dev` overlay, with the play-only overlay
 * on top (deploy/kubernetes/overlays/play: local images, pod names for Service names, NATS and the store as Pods),
 * started with `podman kube play`; every process's pod turns ready (its /ready answers 200 inside the pod) and the
 * gateway answers on the host. The Secrets a cluster's operators would create are podman secrets made here.
 * What kube play does not model (Services, NetworkPolicies, the Ingress, PodDisruptionBudgets, the production
 * overlay's HPA) is left out of the played file, and this test checks that nothing else is; those stay tested by
 * test/deploy/kubernetes.test.ts (render and validate). Run with `npm run test:containers`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { generateDevKeyPair } from '../../shared/src/core/auth';
import { containersSettings, ensureImages, run } from '../../scripts/lib/containers';
import { serviceVersion } from '../../scripts/lib/release';
import { freePort } from '../../scripts/lib/server-process';
import { describeWithTools, renderOverlay, type KubeObject } from '../support/deploy';
import { eventually } from './helpers';

jest.setTimeout(60 * 60_000);

const PROCESSES = ['gateway', 'accounts', 'community', 'houses', 'records', 'notifications'];
/** The kinds podman 4.3's kube play models; the rest of the overlay is a cluster's. */
const PLAYED = new Set(['ConfigMap', 'Deployment', 'Pod']);
const NOT_MODELLED = ['Ingress', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'];
const PREFIX = 'binzip-play-';

describeWithTools('podman kube play of the dev overlay', ['podman', 'kubectl'], () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'binzip-kube-play-'));
  const network = `${PREFIX}${process.pid}`;
  const secrets: string[] = [];
  const files: string[] = [];
  let port: number;

  const podman = async (args: string[]) => {
    const res = await run('podman', args);
    if (res.code !== 0) throw new Error(`podman ${args.join(' ')}: ${(res.stderr || res.stdout).trim()}`);
    return res.stdout;
  };
  /** A podman secret as kube play reads it: a JSON object of base64 values, one per key. */
  const secret = async (name: string, data: Record<string, string>) => {
    if ((await run('podman', ['secret', 'inspect', name])).code === 0)
      throw new Error(`a podman secret ${name} exists already (not this test's): remove it first`);
    const file = path.join(work, `${name}.json`);
    writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]))), { mode: 0o600 });
    await podman(['secret', 'create', name, file]);
    secrets.push(name);
  };
  const play = async (name: string, objects: KubeObject[]) => {
    const file = path.join(work, name);
    writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
    files.push(file);
    await podman(['kube', 'play', '--network', network, file]);
  };
  /** What a process's pod answers on its own port, asked inside it. */
  const inside = async (container: string, urlPath: string) => {
    const script = `fetch('http://127.0.0.1:'+process.env.PORT+'${urlPath}').then(async(r)=>console.log(JSON.stringify({status:r.status,data:(await r.json()).data})),()=>console.log('{"status":0}'))`;
    const res = await run('podman', ['exec', container, 'node', '-e', script]);
    return res.code === 0 ? (JSON.parse(res.stdout) as { status: number; data?: { version?: string } }) : { status: 0 };
  };

  beforeAll(async () => {
    const settings = containersSettings(
      { CONTAINERS_LOCAL_BASES: process.env.CONTAINERS_LOCAL_BASES ?? '1', PATH: process.env.PATH, HOME: process.env.HOME, REVISION: process.env.REVISION },
      generateDevKeyPair(),
      work,
      (line) => process.stdout.write(`[kube play] ${line}\n`),
    );
    await ensureImages(settings);
    port = await freePort('127.0.0.1');
  });

  afterAll(async () => {
    for (const file of files.reverse()) await run('podman', ['kube', 'down', file]);
    await run('podman', ['network', 'rm', '-f', network]);
    for (const name of secrets) await run('podman', ['secret', 'rm', name]);
    rmSync(work, { recursive: true, force: true });
  });

  it('plays the dev overlay: every pod turns ready and the gateway answers on the host', async () => {
    const objects = renderOverlay('play');
    const left = [...new Set(objects.filter((o) => !PLAYED.has(o.kind)).map((o) => o.kind))].sort();
    // Exactly what docs/containers.md says kube play does not model is left out; nothing a process needs.
    expect(left).toEqual(NOT_MODELLED);
    const played = objects.filter((o) => PLAYED.has(o.kind));
    const deployments = played.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(PROCESSES.map((p) => `${PREFIX}${p}`).sort());
    // The gateway on the host: the player's choice of port (a cluster has the Ingress).
    const gateway = deployments.find((d) => d.metadata.name === `${PREFIX}gateway`) as KubeObject;
    const container = (gateway.spec as { template: { spec: { containers: Array<{ ports: Array<{ containerPort: number; hostPort?: number }> }> } } }).template
      .spec.containers[0];
    container.ports[0].hostPort = port;

    const keys = generateDevKeyPair();
    await secret('binzip-jwt', { JWT_PUBLIC_KEY: keys.publicKey, JWT_PRIVATE_KEY: keys.privateKey });
    await secret('binzip-revocation-feed', { REVOCATION_FEED_TOKEN: 'kube-play-revocation-feed-token' });
    await secret('binzip-metrics', { METRICS_TOKEN: 'kube-play-metrics-token' });
    await secret('binzip-mongodb-admin-binzip', { 'connectionString.standard': `mongodb://${PREFIX}dev-mongo:27017/` });
    await podman(['network', 'create', network]);

    // The stores first (a cluster has them before the processes), then the six processes and their ConfigMaps.
    await play(
      'stores.yaml',
      played.filter((o) => o.kind === 'Pod'),
    );
    await play(
      'processes.yaml',
      played.filter((o) => o.kind !== 'Pod'),
    );

    for (const name of PROCESSES) {
      const c = `${PREFIX}${name}-pod-0-${name}`;
      const answer = await eventually(async () => {
        const a = await inside(c, '/ready');
        return a.status === 200 ? a : undefined;
      }, 180_000).catch(async (err: Error) => {
        const logs = await run('podman', ['logs', '--tail', '5', c]);
        throw new Error(`${c} not ready: ${err.message}\n${logs.stdout}${logs.stderr}`);
      });
      expect(answer.status).toBe(200);
      expect((await inside(c, '/health')).data?.version).toBe(serviceVersion(name));
    }
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200, 60_000);
    // An answer from a service behind the gateway, over the pod-name addresses.
    const boards = await fetch(`${url}/api/v1/boards?prefix=DEFAULT`);
    expect(boards.status).toBe(200);
    expect(((await boards.json()) as { code: string }).code).toBe('SUCCESS');
    const houses = await fetch(`${url}/api/v1/houses?page=0`);
    expect(houses.status).toBe(200);
  });
});
