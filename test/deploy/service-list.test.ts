/**
 * The list of services is written once (`SERVICE_PORTS`, services/gateway/src/proxy/upstreams.ts): the gateway's
 * pools and settings, the launcher (`npm start`, the end-to-end tests, the benchmarks) and the preflight derive
 * from it. What cannot derive from it (the compose file, the Kubernetes manifests, the Dockerfile, the npm
 * workspaces and the TypeScript build) is checked here to name the same services, each with its default port.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { SERVICE_NAMES, SERVICE_PORTS } from '../../services/gateway/src/proxy/upstreams';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const sorted = (names: Iterable<string>) => [...names].sort();
const LISTED = sorted(SERVICE_NAMES);

test('every listed service has its folder with its declaration, and no other folder declares one', () => {
  for (const name of SERVICE_NAMES) expect(existsSync(path.join(ROOT, 'services', name, 'src', 'service.ts'))).toBe(true);
  const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
  const declared = workspaces.filter((w) => w.startsWith('services/') && existsSync(path.join(ROOT, w, 'src', 'service.ts')));
  expect(sorted(declared.map((w) => w.slice('services/'.length)))).toEqual(LISTED);
});

test('the TypeScript build references every listed service', () => {
  const references = (JSON.parse(read('tsconfig.json')) as { references: Array<{ path: string }> }).references.map((r) => r.path);
  for (const name of SERVICE_NAMES) expect(references).toContain(`services/${name}`);
});

test('docker-compose.yml runs each listed service from the one Dockerfile, on its port', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { build?: { args?: { SERVICE?: string } }; environment?: Record<string, string> }>;
  };
  const built = Object.entries(compose.services).filter(([, service]) => service.build?.args?.SERVICE && service.build.args.SERVICE !== 'gateway');
  expect(sorted(built.map(([, service]) => service.build!.args!.SERVICE!))).toEqual(LISTED);
  for (const [, service] of built) {
    const name = service.build!.args!.SERVICE! as keyof typeof SERVICE_PORTS;
    expect(service.environment?.PORT).toBe(String(SERVICE_PORTS[name]));
  }
});

test('the Dockerfile builds exactly the gateway and the listed services', () => {
  const accepted = /case "\$\{SERVICE\}" in ([a-z|]+)\)/.exec(read('Dockerfile'))?.[1].split('|');
  expect(sorted(accepted ?? [])).toEqual(sorted(['gateway', ...SERVICE_NAMES]));
});

test('the Kubernetes base deploys each listed service', () => {
  const kustomization = parse(read('deploy/kubernetes/base/kustomization.yaml')) as { resources: string[] };
  for (const name of SERVICE_NAMES) expect(kustomization.resources).toContain(`${name}.yaml`);
  const deployments = kustomization.resources
    .flatMap((file) => parseAllDocuments(read(`deploy/kubernetes/base/${file}`)).map((doc) => doc.toJS() as { kind?: string; metadata?: { name?: string } }))
    .filter((object) => object?.kind === 'Deployment')
    .map((object) => object.metadata?.name ?? '');
  expect(sorted(deployments.filter((name) => name !== 'gateway'))).toEqual(LISTED);
});
