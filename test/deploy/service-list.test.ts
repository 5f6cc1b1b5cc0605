/**
 * The list of services is written once (`SERVICE_PORTS`, services/gateway/src/proxy/upstreams.ts): the gateway's
 * pools and settings, the launcher (`npm start`, the end-to-end tests, the benchmarks) and the preflight derive
 * from it. What cannot derive from it (the compose file, the Kubernetes manifests, the Dockerfile, the npm
 * workspaces and the TypeScript build) is checked here to name the same services, each with its default port.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { renderedDeployFiles } from '../../scripts/lib/service-deploy';
import { routePrefixes, serviceRoutes } from '../../scripts/lib/service-routes';
import { routeFor, SERVICE_NAMES, SERVICE_PORTS } from '../../services/gateway/src/proxy/upstreams';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const sorted = (names: Iterable<string>) => [...names].sort();
const LISTED = sorted(SERVICE_NAMES);

test('every listed service has its folder with its declaration, and no other folder declares one', () => {
  for (const name of SERVICE_NAMES) expect(existsSync(path.join(ROOT, 'services', name, 'src', 'service.ts'))).toBe(true);
  const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
  // `services/*` (a new service is a workspace by being a folder there) or the folders one by one.
  const folders = workspaces.flatMap((w) => (w === 'services/*' ? readdirSync(path.join(ROOT, 'services')).map((name) => `services/${name}`) : [w]));
  const declared = folders.filter((w) => w.startsWith('services/') && existsSync(path.join(ROOT, w, 'src', 'service.ts')));
  expect(sorted(declared.map((w) => w.slice('services/'.length)))).toEqual(LISTED);
  expect(folders).toContain('services/gateway');
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

test('the gateway routes every operation a service declares to that service (its routes derive from them)', () => {
  for (const { name, routes } of serviceRoutes()) {
    for (const operation of routes.operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, 'x');
      expect({ path, service: routeFor(path)?.service }).toEqual({ path, service: name });
      expect(routeFor(path.toUpperCase().replace('/API/', '/api/'))?.service).toBe(name);
    }
  }
});

test('a route prefix is the shortest no other service shares, and a deeper one comes first', () => {
  const routes = routePrefixes([
    { name: 'accounts', paths: ['/api/v1/users/{id}', '/api/v1/users/sign-in', '/api/v1/admin/stats/users', '/api/v1/admin/users'] },
    { name: 'houses', paths: ['/api/v1/houses', '/api/v1/admin/stats/houses'] },
    { name: 'records', paths: ['/api/v1/record', '/api/v1/record_review/{id}'] },
  ]);
  expect(routes).toEqual([
    ['/api/v1/admin/stats/houses', 'houses'],
    ['/api/v1/admin/stats/users', 'accounts'],
    ['/api/v1/admin/users', 'accounts'],
    ['/api/v1/houses', 'houses'],
    ['/api/v1/record', 'records'],
    ['/api/v1/record_review', 'records'],
    ['/api/v1/users', 'accounts'],
  ]);
  expect(() =>
    routePrefixes([
      { name: 'a', paths: ['/api/v1/same'] },
      { name: 'b', paths: ['/api/v1/same'] },
    ]),
  ).toThrow(/both a's and b's/);
});

test('the deployment files are in step with the list of services and each service deploy.yaml (npm run services:render)', () => {
  const stale = [...renderedDeployFiles()].filter(([file, content]) => read(file) !== content).map(([file]) => file);
  expect(stale).toEqual([]);
});
