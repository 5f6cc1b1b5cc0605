/**
 * The build and deployment files' per-service parts (each service's tsconfig.json, the root project's references,
 * the Dockerfile, compose, Kubernetes and observability files), derived from the one list of services (`SERVICE_PORTS`) and each
 * service's own `services/<name>/deploy.yaml` (what it needs beyond what every service gets: settings, volumes,
 * Kubernetes env and resources). `npm run services:render` writes them; test/deploy/service-list.test.ts fails
 * when a file is out of step. A file is either written whole (a generated header says so) or has regions between
 * `services:render begin <region>` and `services:render end <region>` comment lines; everything outside the
 * regions is written by hand.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICE_NAMES, SERVICE_PORTS, upstreamSetting, type ServiceName } from '../../services/gateway/src/proxy/upstreams';

const ROOT = path.resolve(__dirname, '..', '..');

/** `services/<name>/deploy.yaml`: each part optional; the text parts are copied as written (comments included). */
interface ServiceDeploy {
  compose?: {
    /** Settings after `PORT` and `MONGODB_DB`, as YAML lines of a map. */
    environment?: string;
    /** Keys after `environment` (volumes, a comment), as YAML lines. */
    more?: string;
  };
  kubernetes?: {
    /** Entries of the container's `env` after the shared ones, as YAML lines of a list. */
    env?: string;
    resources?: { cpu: string; memory: string; limit: string };
  };
}

const DEFAULT_RESOURCES = { cpu: '100m', memory: '160Mi', limit: '320Mi' };

function deployOf(name: ServiceName): ServiceDeploy {
  const file = path.join(ROOT, 'services', name, 'deploy.yaml');
  return existsSync(file) ? ((parse(readFileSync(file, 'utf8')) as ServiceDeploy | null) ?? {}) : {};
}

const indent = (text: string, spaces: number): string[] =>
  text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line ? ' '.repeat(spaces) + line : line));

const PROCESSES: ReadonlyArray<'gateway' | ServiceName> = ['gateway', ...SERVICE_NAMES];

/** Each region's lines, by file and region name. */
const REGIONS: Record<string, Record<string, () => string[]>> = {
  Dockerfile: {
    'build-packages': () => PROCESSES.map((name) => `COPY services/${name}/package.json services/${name}/`),
    'runtime-check': () => [
      `RUN case "\${SERVICE}" in ${PROCESSES.join('|')}) ;; \\`,
      `    *) echo "build with --build-arg SERVICE=<${PROCESSES.join('|')}>" >&2; exit 1 ;; esac`,
    ],
    'runtime-packages': () => PROCESSES.map((name) => `COPY --from=build /app/services/${name}/package.json services/${name}/`),
  },
  'docker-compose.yml': {
    'gateway-depends-on': () => SERVICE_NAMES.map((name) => `    ${name}: { condition: service_healthy }`),
    'gateway-upstreams': () => SERVICE_NAMES.map((name) => `    ${upstreamSetting(name)}: http://${name}:${SERVICE_PORTS[name]}`),
    services: () =>
      SERVICE_NAMES.flatMap((name, index) => {
        const { compose } = deployOf(name);
        const head = [
          ...(index > 0 ? [''] : []),
          `  ${name}:`,
          '    <<: *service',
          `    image: \${IMAGE_PREFIX:-binzip}/${name}:\${IMAGE_TAG:-latest}`,
          `    build: { context: ., dockerfile: Dockerfile, args: { SERVICE: ${name} } }`,
        ];
        const environment = compose?.environment
          ? [
              '    environment:',
              '      <<: *service-env',
              `      PORT: '${SERVICE_PORTS[name]}'`,
              `      MONGODB_DB: ${name}`,
              ...indent(compose.environment, 6),
            ]
          : [`    environment: { <<: *service-env, PORT: '${SERVICE_PORTS[name]}', MONGODB_DB: ${name} }`];
        return [...head, ...environment, ...(compose?.more ? indent(compose.more, 4) : [])];
      }),
  },
  'deploy/kubernetes/base/kustomization.yaml': {
    processes: () => PROCESSES.map((name) => `  - ${name}.yaml`),
  },
  'deploy/kubernetes/base/config.yaml': {
    'gateway-upstreams': () => SERVICE_NAMES.map((name) => `  ${upstreamSetting(name)}: http://${name}:${SERVICE_PORTS[name]}`),
  },
  'deploy/kubernetes/base/network-policies.yaml': {
    services: () => [`      - { key: app.kubernetes.io/component, operator: In, values: [${SERVICE_NAMES.join(', ')}] }`],
    'feed-readers': () => [
      `              - { key: app.kubernetes.io/component, operator: In, values: [${SERVICE_NAMES.filter((name) => name !== 'accounts').join(', ')}] }`,
    ],
  },
  'deploy/kubernetes/overlays/dev/kustomization.yaml': {
    images: () => PROCESSES.map((name) => `  - { name: binzip-${name}, newName: binzip-${name}, newTag: dev }`),
  },
  'deploy/kubernetes/overlays/play/kustomization.yaml': {
    images: () => PROCESSES.map((name) => `  - { name: binzip-${name}, newName: localhost/binzip/${name}, newTag: latest }`),
    'gateway-upstreams': () => SERVICE_NAMES.map((name) => `        ${upstreamSetting(name)}: http://binzip-play-${name}-pod-0:${SERVICE_PORTS[name]}`),
  },
  'deploy/kubernetes/overlays/production/kustomization.yaml': {
    images: () => PROCESSES.map((name) => `  - { name: binzip-${name}, newName: registry.example/binzip/${name}, newTag: '1.0.0' }`),
  },
  'deploy/kubernetes/stores/mongodb-community.yaml': {
    databases: () => SERVICE_NAMES.map((name) => `        - { name: readWrite, db: ${name} }`),
  },
};

const GENERATED = (source: string) => `# Written by \`npm run services:render\` from ${source}; do not edit (scripts/lib/service-deploy.ts).`;

/** deploy/kubernetes/base/<name>.yaml: the service's Deployment and its headless Service. */
function kubernetesService(name: ServiceName): string {
  const port = SERVICE_PORTS[name];
  const { kubernetes } = deployOf(name);
  const resources = kubernetes?.resources ?? DEFAULT_RESOURCES;
  const labels = `{ app.kubernetes.io/name: binzip, app.kubernetes.io/component: ${name} }`;
  return [
    GENERATED(`SERVICE_PORTS and services/${name}/deploy.yaml`),
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    `  labels: ${labels}`,
    'spec:',
    '  replicas: 1',
    '  selector:',
    `    matchLabels: ${labels}`,
    '  template:',
    '    metadata:',
    `      labels: ${labels}`,
    `      annotations: { prometheus.io/scrape: 'true', prometheus.io/port: '${port}', prometheus.io/path: /metrics }`,
    '    spec:',
    '      containers:',
    `        - name: ${name}`,
    `          image: binzip-${name}`,
    '          ports:',
    `            - { name: http, containerPort: ${port} }`,
    '          envFrom:',
    '            - configMapRef: { name: binzip-config }',
    '          env:',
    `            - { name: PORT, value: '${port}' }`,
    `            - { name: MONGODB_DB, value: ${name} }`,
    '            - name: MONGODB_URI',
    '              valueFrom: { secretKeyRef: { name: binzip-mongodb-admin-binzip, key: connectionString.standard } }',
    '            - name: JWT_PUBLIC_KEY',
    '              valueFrom: { secretKeyRef: { name: binzip-jwt, key: JWT_PUBLIC_KEY } }',
    "            # The revocation feed's shared secret (accounts answers its bearer, the others read with it; docs/operations.md).",
    '            - name: REVOCATION_FEED_TOKEN',
    '              valueFrom: { secretKeyRef: { name: binzip-revocation-feed, key: REVOCATION_FEED_TOKEN } }',
    '            # The bearer Prometheus scrapes /metrics with (deploy/observability/prometheus-scrape.yml); absent, nobody.',
    '            - name: METRICS_TOKEN',
    '              valueFrom: { secretKeyRef: { name: binzip-metrics, key: METRICS_TOKEN, optional: true } }',
    ...(kubernetes?.env ? indent(kubernetes.env, 12) : []),
    '          resources:',
    `            requests: { cpu: ${resources.cpu}, memory: ${resources.memory} }`,
    `            limits: { memory: ${resources.limit} }`,
    '---',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${name}`,
    `  labels: ${labels}`,
    'spec:',
    '  # Headless: the gateway resolves this name to every ready pod and balances over them itself (round robin,',
    '  # skipping instances whose /health fails), which a virtual IP would hide from it.',
    '  clusterIP: None',
    `  selector: ${labels}`,
    '  ports:',
    `    - { name: http, port: ${port}, targetPort: http }`,
    '',
  ].join('\n');
}

/** Every service's services/<name>/tsconfig.json: the same project settings, built after shared and events. */
const SERVICE_TSCONFIG = `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist" },
  "include": ["src"],
  "references": [{ "path": "../../shared" }, { "path": "../../events" }]
}
`;

/** deploy/kubernetes/base/pdbs.yaml: one instance of each process at a time may be evicted. */
function disruptionBudgets(): string {
  return [
    GENERATED('SERVICE_PORTS'),
    '# One instance at a time may be evicted (node drains, upgrades); with 2+ replicas one always serves.',
    PROCESSES.map((name) =>
      [
        'apiVersion: policy/v1',
        'kind: PodDisruptionBudget',
        'metadata:',
        `  name: ${name}`,
        'spec:',
        '  maxUnavailable: 1',
        `  selector: { matchLabels: { app.kubernetes.io/name: binzip, app.kubernetes.io/component: ${name} } }`,
      ].join('\n'),
    ).join('\n---\n'),
    '',
  ].join('\n');
}

/** The processes' alternation in a PromQL label matcher (`component=~"gateway|accounts|…"`). */
const COMPONENTS_MATCHER = /component=~(\\?)"[a-z|-]+(\\?)"/g;

function replaceRegions(file: string, text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const regions = REGIONS[file] ?? {};
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i += 1) {
    out.push(lines[i]);
    const begin = /#\s*services:render begin (\S+)/.exec(lines[i]);
    if (!begin) continue;
    const region = regions[begin[1]];
    if (!region) throw new Error(`${file}: unknown region ${begin[1]}`);
    const end = lines.findIndex((line, j) => j > i && line.includes(`services:render end ${begin[1]}`));
    if (end < 0) throw new Error(`${file}: region ${begin[1]} has no end`);
    out.push(...region(), lines[end]);
    seen.add(begin[1]);
    i = end;
  }
  for (const name of Object.keys(regions)) if (!seen.has(name)) throw new Error(`${file}: region ${name} is missing`);
  return out.join('\n');
}

/** Every file this renders, with the content it should have now (`path` is repository-relative). */
export function renderedDeployFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
  for (const file of Object.keys(REGIONS)) files.set(file, replaceRegions(file, read(file)));
  for (const name of SERVICE_NAMES) files.set(`deploy/kubernetes/base/${name}.yaml`, kubernetesService(name));
  files.set('deploy/kubernetes/base/pdbs.yaml', disruptionBudgets());
  for (const file of ['deploy/observability/alerts.yml', 'deploy/observability/grafana-dashboard.json']) {
    files.set(
      file,
      read(file).replace(COMPONENTS_MATCHER, (_match, open: string, close: string) => `component=~${open}"${PROCESSES.join('|')}${close}"`),
    );
  }
  for (const name of SERVICE_NAMES) files.set(`services/${name}/tsconfig.json`, SERVICE_TSCONFIG);
  const tsconfig = JSON.parse(read('tsconfig.json')) as { references: Array<{ path: string }> };
  const others = tsconfig.references.filter((reference) => !reference.path.startsWith('services/'));
  tsconfig.references = [...others, ...PROCESSES.map((name) => ({ path: `services/${name}` }))];
  const references = tsconfig.references.map(
    (reference) =>
      `    ${JSON.stringify(reference)
        .replace(/^\{(.*)\}$/, '{ $1 }')
        .replace('":"', '": "')}`,
  );
  files.set(
    'tsconfig.json',
    `${JSON.stringify({ ...tsconfig, references: [] }, null, 2).replace('"references": []', `"references": [\n${references.join(',\n')}\n  ]`)}\n`,
  );
  return files;
}

/**
 * A file's text without what `renderedDeployFiles` writes: empty for a file it writes whole, the regions and
 * matchers removed otherwise (for counting what is written by hand: scripts/count-structure.ts).
 */
export function withoutRendered(file: string, text: string): string {
  if (text.startsWith('# Written by `npm run services:render`')) return '';
  if (file === 'tsconfig.json') return text.replace(/"references": \[[^\]]*\]/, '');
  return text.replace(/^.*services:render begin (\S+)[^\n]*\n[\s\S]*?^.*services:render end \1.*$/gm, '').replace(COMPONENTS_MATCHER, 'component=~""');
}
