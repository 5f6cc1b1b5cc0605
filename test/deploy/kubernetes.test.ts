/**
 * The Kustomize overlays under deploy/kubernetes/, rendered by `kubectl kustomize`: every object valid against
 * the Kubernetes schemas (kubernetes-models), and the rules the manifests promise.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describeWithTools, KUSTOMIZE_ROOT, OVERLAYS, PROCESSES, processDeployments, renderOverlay, type KubeObject } from '../support/deploy';

interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] }; runAsNonRoot?: boolean };
}
interface PodSpec {
  containers: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
}

type ModelClass = new (data: unknown) => { validate(): void };

/** The kubernetes-models class of an object (`apps/v1` Deployment -> kubernetes-models/apps/v1). */
function modelOf(object: KubeObject): ModelClass | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const models = require(`kubernetes-models/${object.apiVersion}`) as Record<string, ModelClass | undefined>;
    return models[object.kind];
  } catch {
    return undefined;
  }
}

const podSpec = (object: KubeObject) => (object.spec as { template: { spec: PodSpec } }).template.spec;
/** The grace period must cover the drain plus the ordered stop (HTTP, consumers, stores) plus a margin. */
const ORDERED_STOP_MS = 15_000;

describeWithTools('Kubernetes overlays', ['kubectl'], () => {
  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    const objects = renderOverlay(overlay);
    const byKind = (kind: string) => objects.filter((object) => object.kind === kind);
    const deployments = processDeployments(objects);
    const configMap = (name: string) => (byKind('ConfigMap').find((object) => object.metadata.name === name)?.data ?? {}) as Record<string, string>;

    it('validates every object against the Kubernetes schemas', () => {
      const problems: string[] = [];
      for (const object of objects) {
        const Model = modelOf(object);
        if (!Model) {
          problems.push(`${object.apiVersion} ${object.kind} ${object.metadata.name}: no schema (not a built-in kind)`);
          continue;
        }
        try {
          new Model(object).validate();
        } catch (err) {
          problems.push(`${object.kind} ${object.metadata.name}: ${(err as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
      expect(new Set(objects.map((object) => object.metadata.namespace))).toEqual(new Set([overlay === 'dev' ? 'binzip-dev' : 'binzip']));
    });

    it('runs six processes, each with probes, resources and a non-root read-only container', () => {
      expect([...deployments.keys()].sort()).toEqual([...PROCESSES].sort());
      for (const [process, deployment] of deployments) {
        const spec = podSpec(deployment);
        expect(spec.containers).toHaveLength(1);
        const [container] = spec.containers;
        const port = container.env?.find((variable) => variable.name === 'PORT')?.value;
        expect({ process, ports: container.ports }).toEqual({ process, ports: [{ name: 'http', containerPort: Number(port) }] });
        expect({ process, liveness: container.livenessProbe?.httpGet, readiness: container.readinessProbe?.httpGet }).toEqual({
          process,
          liveness: { path: '/health', port: 'http' },
          readiness: { path: '/ready', port: 'http' },
        });
        expect({ process, requests: Object.keys(container.resources?.requests ?? {}).sort(), limits: Object.keys(container.resources?.limits ?? {}) }).toEqual({
          process,
          requests: ['cpu', 'memory'],
          limits: ['memory'],
        });
        expect({ process, pod: spec.securityContext?.runAsNonRoot, user: spec.securityContext?.runAsUser, container: container.securityContext }).toEqual({
          process,
          pod: true,
          user: 1000,
          container: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        });
        // Tracing settings (off until an overlay names a collector) reach every process through the shared config.
        expect({ process, config: container.envFrom?.some((source) => source.configMapRef?.name === 'binzip-config') }).toEqual({ process, config: true });
        expect(Object.keys(configMap('binzip-config'))).toEqual(
          expect.arrayContaining(['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG']),
        );
        const drainMs = Number(configMap('binzip-config').SHUTDOWN_DRAIN_MS);
        expect(drainMs).toBeGreaterThan(0);
        expect((spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThanOrEqual(drainMs + ORDERED_STOP_MS);
      }
    });

    it('gives every process a Service and a PodDisruptionBudget selecting exactly its pods', () => {
      for (const [process, deployment] of deployments) {
        const podLabels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
        const selects = (selector: Record<string, string>) => Object.entries(selector).every(([key, value]) => podLabels[key] === value);
        const services = byKind('Service').filter((service) => selects((service.spec as { selector: Record<string, string> }).selector));
        expect({ process, services: services.map((service) => service.metadata.name) }).toEqual({ process, services: [process] });
        const budgets = byKind('PodDisruptionBudget').filter((budget) =>
          selects((budget.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels),
        );
        expect({ process, budgets: budgets.length }).toEqual({ process, budgets: 1 });
      }
    });

    it('exposes the gateway alone: no node port or load balancer, the Ingress leads to the gateway only, and policies deny the rest', () => {
      for (const service of byKind('Service'))
        expect([service.metadata.name, (service.spec as { type?: string }).type ?? 'ClusterIP']).toEqual([service.metadata.name, 'ClusterIP']);
      const backends = byKind('Ingress').flatMap((ingress) =>
        (ingress.spec as { rules: Array<{ http: { paths: Array<{ backend: { service: { name: string } } }> } }> }).rules.flatMap((rule) =>
          rule.http.paths.map((entry) => entry.backend.service.name),
        ),
      );
      expect(new Set(backends)).toEqual(new Set(['gateway']));
      const policies = byKind('NetworkPolicy').map((policy) => policy.spec as { podSelector: Record<string, unknown>; ingress?: Array<{ from?: unknown[] }> });
      expect(policies.some((policy) => Object.keys(policy.podSelector).length === 0 && policy.ingress === undefined)).toBe(true);
      // Only the gateway's policy lets in anything from the ingress controller's namespace.
      const fromController = byKind('NetworkPolicy').filter((policy) => JSON.stringify(policy.spec).includes('ingress-nginx'));
      expect(
        fromController.map(
          (policy) => (policy.spec as { podSelector: { matchLabels?: Record<string, string> } }).podSelector.matchLabels?.['app.kubernetes.io/component'],
        ),
      ).toEqual(['gateway']);
    });

    it(
      overlay === 'production' ? "scales houses on CPU and notifications on its consumers' lag, each HPA owning its replica count" : 'has no autoscaler',
      () => {
        const autoscalers = byKind('HorizontalPodAutoscaler');
        if (overlay !== 'production') {
          expect(autoscalers).toEqual([]);
          return;
        }
        const target = (name: string) => autoscalers.find((hpa) => (hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === name);
        expect(
          autoscalers
            .map((hpa) => (hpa.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef)
            .sort((a, b) => a.name.localeCompare(b.name)),
        ).toEqual([
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'houses' },
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'notifications' },
        ]);
        for (const name of ['houses', 'notifications'] as const) {
          const hpa = target(name)!.spec as { minReplicas: number; maxReplicas: number; behavior?: { scaleDown?: { stabilizationWindowSeconds?: number } } };
          expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
          expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
          expect(hpa.behavior?.scaleDown?.stabilizationWindowSeconds).toBeGreaterThan(0);
          expect((deployments.get(name)?.spec as { replicas?: number }).replicas).toBeUndefined();
        }
        expect((target('houses')!.spec as { metrics: Array<{ type: string; resource?: { name: string } }> }).metrics).toEqual([
          expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }),
        ]);
        // Notifications on the lag of each of its durable consumers, by the names the service gives them.
        const lag = (
          target('notifications')!.spec as {
            metrics: Array<{ type: string; external?: { metric: { name: string; selector: { matchLabels: Record<string, string> } } } }>;
          }
        ).metrics;
        expect(lag.map((m) => [m.type, m.external?.metric.name, m.external?.metric.selector.matchLabels.consumer_name])).toEqual([
          ['External', 'jetstream_consumer_num_pending', 'notifications-board-comments'],
          ['External', 'jetstream_consumer_num_pending', 'notifications-record-comments'],
        ]);
        const events = readFileSync(path.join(KUSTOMIZE_ROOT, '..', '..', 'services', 'notifications', 'src', 'events', 'index.ts'), 'utf8');
        for (const durable of ['notifications-board-comments', 'notifications-record-comments']) expect(events).toContain(`durable: '${durable}'`);
        const adapter = parseAllDocuments(readFileSync(path.join(KUSTOMIZE_ROOT, 'stores', 'prometheus-adapter-values.yaml'), 'utf8'))[0].toJS() as {
          rules: { external: Array<{ name: { as: string } }> };
        };
        expect(adapter.rules.external.map((rule) => rule.name.as)).toContain('jetstream_consumer_num_pending');
        for (const process of PROCESSES.filter((name) => name !== 'houses' && name !== 'notifications'))
          expect([process, (deployments.get(process)?.spec as { replicas?: number }).replicas]).toEqual([process, 2]);
      },
    );
  });

  it('names the MongoDB replica set and the NATS cluster the manifests expect (3 members each)', () => {
    const [mongo] = parseAllDocuments(readFileSync(path.join(KUSTOMIZE_ROOT, 'stores', 'mongodb-community.yaml'), 'utf8')).map(
      (doc) => doc.toJS() as KubeObject,
    );
    expect(mongo.kind).toBe('MongoDBCommunity');
    const spec = mongo.spec as { members: number; users: Array<{ connectionStringSecretName: string }> };
    expect(spec.members).toBe(3);
    // The Secret the Deployments read MONGODB_URI from is the one the operator writes.
    const deployment = renderOverlay('production').find((object) => object.kind === 'Deployment' && object.metadata.name === 'houses');
    expect(JSON.stringify(deployment)).toContain(spec.users[0].connectionStringSecretName);
    const nats = parseAllDocuments(readFileSync(path.join(KUSTOMIZE_ROOT, 'stores', 'nats-values.yaml'), 'utf8'))[0].toJS() as {
      config: { cluster: { enabled: boolean; replicas: number }; jetstream: { enabled: boolean } };
    };
    expect(nats.config).toMatchObject({ cluster: { enabled: true, replicas: 3 }, jetstream: { enabled: true } });
  });
});
