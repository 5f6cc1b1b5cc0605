/**
 * The alert rules and the dashboard under deploy/observability/: valid for Prometheus (promtool), and naming
 * only metrics the processes export, so a renamed metric cannot silently turn an alert into one that never fires.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { createLogger, generateDevKeyPair } from '@binzip/shared';
import { configSchema } from '../../services/gateway/src/config';
import { buildGateway } from '../../services/gateway/src/gateway';
import { describeWithTools, OVERLAYS, processDeployments, renderOverlay, REPO_ROOT } from '../support/deploy';
import { metricNames } from '../support/prometheus';

const OBSERVABILITY = path.join(REPO_ROOT, 'deploy', 'observability');
const RULES = path.join(OBSERVABILITY, 'alerts.yml');
const SCRAPE = path.join(OBSERVABILITY, 'prometheus-scrape.yml');

interface ScrapeConfig {
  rule_files: string[];
  scrape_configs: Array<{
    job_name: string;
    kubernetes_sd_configs?: Array<{ role: string; namespaces?: { names: string[] } }>;
    static_configs?: unknown[];
    authorization?: { type: string; credentials_file: string };
  }>;
}
const scrapeConfig = (): ScrapeConfig => parseYaml(readFileSync(SCRAPE, 'utf8')) as ScrapeConfig;

/** Series Prometheus records itself for every scrape target. */
const PROMETHEUS_OWN = new Set(['up']);

interface RuleFile {
  groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}
interface Dashboard {
  panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
}

function namedExpressions(): Array<{ where: string; expr: string }> {
  const rules = parseYaml(readFileSync(RULES, 'utf8')) as RuleFile;
  const dashboard = JSON.parse(readFileSync(path.join(OBSERVABILITY, 'grafana-dashboard.json'), 'utf8')) as Dashboard;
  return [
    ...rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert ${rule.alert ?? rule.record}`, expr: rule.expr }))),
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ where: `panel ${panel.title}`, expr: target.expr.replace(/\$__rate_interval/g, '5m') })),
    ),
  ];
}

/** Every series name the processes' `/metrics` offers (histograms as their _bucket/_sum/_count series). */
async function exportedNames(): Promise<Set<string>> {
  const keys = generateDevKeyPair();
  const gateway = buildGateway({
    config: configSchema.parse({ JWT_PUBLIC_KEY: keys.publicKey, OPERATOR_ADDRESSES: 'loopback' }),
    logger: createLogger('observability-test', 'silent'),
  });
  const text = (await request(gateway.handle).get('/metrics').expect(200)).text;
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

describe('alert rules and dashboard', () => {
  it('reads metric names out of PromQL (and not functions, labels, keywords or durations)', () => {
    expect(metricNames('sum by (service) (rate(a_total{status_code=~"5.."}[5m])) / on (service) b_seconds > 0.02 and c unless up')).toEqual([
      'a_total',
      'b_seconds',
      'c',
      'up',
    ]);
  });

  it('name only metrics the processes export', async () => {
    const exported = await exportedNames();
    expect(exported).toContain('binzip_gateway_request_duration_seconds_bucket');
    const unknown = namedExpressions().flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((name) => !exported.has(name) && !PROMETHEUS_OWN.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
    // The rules cover what issue 20 asks alerts for.
    const all = namedExpressions()
      .map(({ expr }) => expr)
      .join('\n');
    for (const metric of [
      'binzip_events_dead_lettered_total',
      'binzip_outbox_oldest_pending_age_seconds',
      'binzip_consumer_pending_events',
      'http_request_duration_seconds_bucket',
      'binzip_dependency_up',
    ]) {
      expect(all).toContain(metric);
    }
  });
});

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('runbooks', () => {
  it('every alert has a runbook_url naming a section of docs/operations.md that exists', () => {
    const rules = parseYaml(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string; annotations?: Record<string, string> }> }> };
    const operations = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
    const anchors = new Set([...operations.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));
    const alerts = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert);
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    const broken = alerts
      .map((rule) => ({ alert: rule.alert, url: rule.annotations?.runbook_url ?? '' }))
      .filter(({ url }) => {
        const [file, anchor] = url.split('#');
        return file !== 'docs/operations.md' || !anchor || !anchors.has(anchor);
      });
    expect(broken).toEqual([]);
  });
});

describe('dashboard variables', () => {
  it('offers namespace and component, and every series a panel reads is narrowed by them', () => {
    const dashboard = JSON.parse(readFileSync(path.join(OBSERVABILITY, 'grafana-dashboard.json'), 'utf8')) as {
      templating: { list: Array<{ name: string; type: string; includeAll?: boolean }> };
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const variables = dashboard.templating.list.filter((variable) => variable.type === 'query');
    expect(variables.map((variable) => [variable.name, variable.includeAll])).toEqual([
      ['namespace', true],
      ['component', true],
    ]);
    const unscoped = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).flatMap(({ expr }) =>
        [...expr.matchAll(/\b((?:binzip|http_request|process|nodejs)_\w+)(\{[^}]*\})?/g)]
          .filter(([, name, selector = '']) => {
            const needs = ['namespace=~"$namespace"', ...(name.startsWith('binzip_gateway_') ? [] : ['component=~"$component"'])];
            return !needs.every((matcher) => selector.includes(matcher));
          })
          .map(([series]) => `${panel.title}: ${series}`),
      ),
    );
    expect(unscoped).toEqual([]);
  });
});

describe('scrape configurations', () => {
  interface PodTemplate {
    kind: string;
    spec?: {
      template?: {
        metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
        spec: { containers: Array<{ ports?: Array<{ name: string; containerPort: number }> }> };
      };
    };
  }
  const base = path.join(REPO_ROOT, 'deploy', 'kubernetes', 'base');
  const deployments = ['gateway', 'accounts', 'community', 'houses', 'records', 'notifications'].map((name) => {
    const docs = parseAllDocuments(readFileSync(path.join(base, `${name}.yaml`), 'utf8')).map((doc) => doc.toJSON() as PodTemplate);
    return { name, template: docs.find((doc) => doc.kind === 'Deployment')!.spec!.template! };
  });
  /** The Kubernetes discovery meta label of a pod label, as Prometheus names it. */
  const metaOf = (label: string) => `__meta_kubernetes_pod_label_${label.replace(/[^a-zA-Z0-9]/g, '_')}`;

  it('the plain configuration keeps every binzip pod, at its annotated port, labelled with component and namespace', () => {
    const config = parseYaml(readFileSync(SCRAPE, 'utf8')) as {
      rule_files: string[];
      scrape_configs: Array<{ relabel_configs: Array<{ source_labels: string[]; target_label?: string; regex?: string; action?: string }> }>;
    };
    expect(config.rule_files).toEqual(['alerts.yml']);
    const relabels = config.scrape_configs[0].relabel_configs;
    const target = (label: string) => relabels.find((r) => r.target_label === label)?.source_labels;
    expect(target('component')).toEqual([metaOf('app.kubernetes.io/component')]);
    expect(target('namespace')).toEqual(['__meta_kubernetes_namespace']);
    const keep = relabels.filter((r) => r.action === 'keep');
    for (const { name, template } of deployments) {
      expect({ name, component: template.metadata.labels['app.kubernetes.io/component'] }).toEqual({ name, component: name });
      for (const rule of keep) {
        const [source] = rule.source_labels;
        const value = source.startsWith('__meta_kubernetes_pod_annotation_')
          ? template.metadata.annotations?.['prometheus.io/scrape']
          : template.metadata.labels[Object.keys(template.metadata.labels).find((label) => metaOf(label) === source) ?? ''];
        expect({ name, source, kept: new RegExp(`^(?:${rule.regex})$`).test(value ?? '') }).toEqual({ name, source, kept: true });
      }
      const port = Number(template.metadata.annotations?.['prometheus.io/port']);
      expect(template.spec.containers[0].ports).toContainEqual({ name: 'http', containerPort: port });
    }
  });

  it("the operator's PodMonitor selects the same pods by their http port and sets component", () => {
    const monitor = parseYaml(readFileSync(path.join(OBSERVABILITY, 'podmonitor.yaml'), 'utf8')) as {
      kind: string;
      spec: {
        selector: { matchLabels: Record<string, string> };
        podMetricsEndpoints: Array<{ port: string; path: string; relabelings: Array<{ sourceLabels: string[]; targetLabel: string }> }>;
      };
    };
    expect(monitor.kind).toBe('PodMonitor');
    const [endpoint] = monitor.spec.podMetricsEndpoints;
    expect(endpoint).toMatchObject({ port: 'http', path: '/metrics' });
    expect(endpoint.relabelings).toContainEqual({ sourceLabels: [metaOf('app.kubernetes.io/component')], targetLabel: 'component' });
    for (const { template } of deployments) {
      for (const [label, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(template.metadata.labels[label]).toBe(value);
      expect(template.spec.containers[0].ports?.some((port) => port.name === 'http')).toBe(true);
    }
  });
});

describeWithTools('promtool', ['promtool'], () => {
  it('accepts the alert rules', () => {
    const output = execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('fires the alerts on the series that should raise them, and only those (alerts.test.yml)', () => {
    const output = execFileSync('promtool', ['test', 'rules', path.join(OBSERVABILITY, 'alerts.test.yml')], { encoding: 'utf8' });
    expect(output).toMatch(/SUCCESS/);
  });
});

describeWithTools('the scrape configuration', ['promtool'], () => {
  it('is a valid Prometheus configuration that sends a bearer token (promtool; discovery swapped for a static target)', () => {
    // Debian's promtool is built without Kubernetes discovery, and checks that the token file exists: the same
    // configuration with a static target and a token file where the Secret would be mounted.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'binzip-scrape-'));
    try {
      const config = scrapeConfig();
      writeFileSync(path.join(dir, 'METRICS_TOKEN'), 'a-scrape-token-of-the-operators');
      writeFileSync(path.join(dir, 'alerts.yml'), readFileSync(RULES, 'utf8'));
      for (const job of config.scrape_configs) {
        expect(job.authorization).toEqual({ type: 'Bearer', credentials_file: expect.stringMatching(/\/METRICS_TOKEN$/) });
        delete job.kubernetes_sd_configs;
        job.static_configs = [{ targets: ['gateway:8080'] }];
        job.authorization = { type: 'Bearer', credentials_file: path.join(dir, 'METRICS_TOKEN') };
      }
      writeFileSync(path.join(dir, 'prometheus.yml'), JSON.stringify(config));
      const output = execFileSync('promtool', ['check', 'config', path.join(dir, 'prometheus.yml')], { encoding: 'utf8' });
      expect(output).toMatch(/SUCCESS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeWithTools('the scrape configuration and the Deployments', ['kubectl'], () => {
  it.each(OVERLAYS)('overlay %s: every scraped process reads METRICS_TOKEN from the Secret key both scrape jobs send, in a namespace they watch', (overlay) => {
    const [job] = scrapeConfig().scrape_configs;
    // /etc/prometheus/secrets/<Secret>/<key>: where the Prometheus operator mounts a Secret's keys.
    const [secret, key] = job.authorization!.credentials_file.split('/').slice(-2);
    const monitor = parseYaml(readFileSync(path.join(OBSERVABILITY, 'podmonitor.yaml'), 'utf8')) as {
      spec: { podMetricsEndpoints: Array<{ authorization?: { type: string; credentials: { name: string; key: string } } }> };
    };
    // The PodMonitor's Secret is read in its own namespace, the overlay's (`kubectl -n <namespace> apply`).
    expect(monitor.spec.podMetricsEndpoints.map((endpoint) => endpoint.authorization)).toEqual([{ type: 'Bearer', credentials: { name: secret, key } }]);
    const deployments = processDeployments(renderOverlay(overlay));
    expect(deployments.size).toBe(6);
    for (const [process, deployment] of deployments) {
      expect({ process, watched: job.kubernetes_sd_configs?.[0].namespaces?.names.includes(deployment.metadata.namespace ?? 'default') }).toEqual({
        process,
        watched: true,
      });
    }
    for (const [process, deployment] of deployments) {
      const template = deployment.spec.template as {
        metadata?: { annotations?: Record<string, string> };
        spec: { containers: Array<{ name: string; env?: unknown[] }> };
      };
      expect({ process, scraped: template.metadata?.annotations?.['prometheus.io/scrape'] }).toEqual({ process, scraped: 'true' });
      const container = template.spec.containers.find((candidate) => candidate.name === process);
      expect({ process, token: container?.env?.find((variable) => (variable as { name: string }).name === 'METRICS_TOKEN') }).toEqual({
        process,
        token: { name: 'METRICS_TOKEN', valueFrom: { secretKeyRef: { name: secret, key, optional: true } } },
      });
    }
  });
});
