/**
 * The alert rules and the dashboard against what Prometheus would really store: series scraped from the running
 * gateway, community and notifications (`/metrics` with the METRICS_TOKEN bearer), labelled as each shipped scrape
 * configuration labels them (deploy/observability/prometheus-scrape.yml's relabelling, and the job the Prometheus
 * operator generates for podmonitor.yaml), for the pods of each overlay (`kubectl kustomize`). Then:
 *
 * - every label a rule or a dashboard query groups, joins or filters by, and every `$labels.x` / `{{x}}` they
 *   print, is on the stored series of the metrics it reads;
 * - `promtool test rules` evaluates alerts.yml on those series and exactly the alerts the scenario must raise fire,
 *   with the labels they must carry (namespace and component included).
 *
 * The scenario, between two scrapes: an invalid event is dead-lettered by notifications; community stops and the
 * requests for it answer 5xx through the gateway. promtool replays it once a minute for half an hour (a counter
 * grows by what it grew between the scrapes, a gauge keeps its second value, the stopped target's series end).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { metricsRegistry } from '@binzip/shared/core';
// The gateway's own metrics, declared in the registry as in the gateway's process (for declaredOnly).
import '../../services/gateway/src/edge';
import { bearer, eventually } from '../support';
import { describeWithTools, OVERLAYS, processDeployments, renderOverlay, REPO_ROOT } from '../support/deploy';
import { startE2eSystem, type E2eSystem } from '../support/e2e';
import {
  attachTargetLabels,
  familyOf,
  labelNames,
  metricNames,
  parseExposition,
  podMonitorJob,
  podTargets,
  seriesText,
  targetLabels,
  type Exposition,
  type Labels,
  type PodMonitor,
  type ScrapeJob,
} from '../support/prometheus';

jest.setTimeout(180_000);

const OBSERVABILITY = path.join(REPO_ROOT, 'deploy', 'observability');
const METRICS_TOKEN = 'scraped-alerts-metrics-token-0123';
const PROCESSES = ['gateway', 'community', 'notifications'] as const;
type Process = (typeof PROCESSES)[number];
/** Requests sent to community while it is stopped: over 0.5/s (BinzipUpstreamFaults) at one round a minute. */
const REQUESTS_WHILE_DOWN = 40;
/** Minutes promtool replays the scenario for: past every rule's `for`. */
const MINUTES = 30;

interface Scrape {
  up: 0 | 1;
  exposition: Exposition;
}

let e2e: E2eSystem;
const scrapes: Array<Record<Process, Scrape>> = [];

const handleOf = (process: Process) => (process === 'gateway' ? e2e.system.gateway : e2e.system.services[process]![0]);

async function scrape(process: Process): Promise<Scrape> {
  try {
    const res = await fetch(`${handleOf(process).url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` }, signal: AbortSignal.timeout(5_000) });
    if (res.status !== 200) return { up: 0, exposition: { samples: [], types: new Map() } };
    return { up: 1, exposition: parseExposition(await res.text()) };
  } catch {
    return { up: 0, exposition: { samples: [], types: new Map() } };
  }
}

async function scrapeAll(): Promise<Record<Process, Scrape>> {
  const entries = await Promise.all(PROCESSES.map(async (process) => [process, await scrape(process)] as const));
  return Object.fromEntries(entries) as Record<Process, Scrape>;
}

/** The system, the two scrapes and the scenario between them. */
async function runScenario(): Promise<void> {
  e2e = await startE2eSystem('scrapedalerts', {
    services: ['community', 'notifications'],
    env: { METRICS_TOKEN, OUTBOX_INTERVAL_MS: '500' },
  });
  await e2e.publishUser({ id: 501, nick_name: 'scrapeAuthor', version: 1 });
  const author = bearer({ userId: 501 });
  // Traffic every process answers: a board written (an outbox event community publishes), lists read.
  await e2e.ok('POST', '/api/v1/boards', {
    token: author,
    body: { title: '긁어 가기', code: '<p>본문</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
  });
  for (let i = 0; i < 5; i++) await e2e.ok('GET', '/api/v1/boards?prefix=DEFAULT');
  scrapes.push(await scrapeAll());

  // An event notifications' schema refuses: dead-lettered at once, whatever its durable.
  const bus = await e2e.bus();
  await bus.publish('community.comment.created', { v: 1, eventId: 'not-a-comment' }, `scraped-alerts-${Date.now()}`);
  await eventually(async () => (await scrape('notifications')).exposition.samples.some((s) => s.name === 'binzip_events_dead_lettered_total'), 15_000, 200);
  // community stops: what the gateway answers for it is 5xx, and its /metrics answers nobody.
  await handleOf('community').stop();
  for (let i = 0; i < REQUESTS_WHILE_DOWN; i++) {
    const res = await e2e.api('GET', '/api/v1/boards?prefix=DEFAULT', { contract: false });
    expect(res.status).toBeGreaterThanOrEqual(500);
  }
  scrapes.push(await scrapeAll());
}

/** The production and dev overlays' pods of the three processes, as pod discovery finds them. */
function overlayPods(overlay: string) {
  const deployments = processDeployments(renderOverlay(overlay));
  return PROCESSES.map((process, index) => {
    const deployment = deployments.get(process)!;
    const template = deployment.spec.template as unknown as {
      metadata: { labels: Labels; annotations?: Labels };
      spec: { containers: Array<{ name: string; ports?: Array<{ name?: string; containerPort: number }> }> };
    };
    const pod = {
      namespace: deployment.metadata.namespace ?? 'default',
      name: `${deployment.metadata.name}-7c9f8d6b5-x${index}q2z`,
      ip: `10.1.0.${index + 10}`,
      labels: template.metadata.labels,
      annotations: template.metadata.annotations ?? {},
      containers: template.spec.containers,
    };
    return { process, pod };
  });
}

interface StoredSeries {
  name: string;
  labels: Labels;
  values: string;
}

/** What Prometheus stores from the two scrapes of every kept target, with each target's `up`. */
function storedSeries(job: ScrapeJob, overlay: string): { series: StoredSeries[]; targets: Map<Process, Labels> } {
  const series: StoredSeries[] = [];
  const targets = new Map<Process, Labels>();
  const [first, second] = scrapes;
  for (const { process, pod } of overlayPods(overlay)) {
    const kept = podTargets(pod)
      .map((discovered) => targetLabels(job, discovered))
      .filter((labels): labels is Labels => labels !== undefined);
    expect({ process, targets: kept.length }).toEqual({ process, targets: 1 });
    const [target] = kept;
    targets.set(process, target);
    series.push({ name: 'up', labels: target, values: `${first[process].up} ${second[process].up}+0x${MINUTES}` });
    const types = new Map([...first[process].exposition.types, ...second[process].exposition.types]);
    const before = new Map(first[process].exposition.samples.map((s) => [seriesText(s.name, s.labels), s.value]));
    const after = new Map(second[process].exposition.samples.map((s) => [seriesText(s.name, s.labels), s.value]));
    const seen = new Set<string>();
    for (const sample of [...first[process].exposition.samples, ...second[process].exposition.samples]) {
      const key = seriesText(sample.name, sample.labels);
      if (seen.has(key) || !Number.isFinite(sample.value)) continue;
      seen.add(key);
      const labels = attachTargetLabels(sample.labels, target);
      const v0 = before.get(key);
      const v1 = after.get(key);
      const type = types.get(familyOf(sample.name, types));
      const grows = type === 'counter' || ((type === 'histogram' || type === 'summary') && /_(bucket|sum|count)$/.test(sample.name));
      let values: string;
      // The stopped target's series end (a stale marker); a counter grows by its growth between the scrapes each
      // minute (one that appeared between them from 0); a gauge keeps its second value.
      if (v1 === undefined) values = `${number(v0!)} stale`;
      else if (grows) {
        const start = v0 ?? 0;
        values = `${number(start)}${v1 - start < 0 ? '-' : '+'}${number(Math.abs(v1 - start))}x${MINUTES}`;
      } else values = `${number(v0 ?? v1)} ${number(v1)}+0x${MINUTES}`;
      series.push({ name: sample.name, labels, values });
    }
  }
  return { series, targets };
}

/** A number as promtool's series notation reads it (no exponent: `1e+21+0x5` would not parse). */
const number = (value: number) => (Number.isInteger(value) ? value.toFixed(0) : value.toFixed(9).replace(/0+$/, ''));

const plainJob = (): ScrapeJob =>
  (parseYaml(readFileSync(path.join(OBSERVABILITY, 'prometheus-scrape.yml'), 'utf8')) as { scrape_configs: ScrapeJob[] }).scrape_configs[0];
const operatorJob = (namespace: string): ScrapeJob =>
  podMonitorJob(parseYaml(readFileSync(path.join(OBSERVABILITY, 'podmonitor.yaml'), 'utf8')) as PodMonitor, namespace);

interface Rule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}
const rules = (): Rule[] =>
  (parseYaml(readFileSync(path.join(OBSERVABILITY, 'alerts.yml'), 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);

/** Every query of the rules and the dashboard, with the labels it also prints (`$labels.x`, `{{x}}`). */
function queries(): Array<{ where: string; expr: string; printed: string[] }> {
  const dashboard = JSON.parse(readFileSync(path.join(OBSERVABILITY, 'grafana-dashboard.json'), 'utf8')) as {
    templating: { list: Array<{ name: string; type: string; definition?: string }> };
    panels: Array<{ title: string; targets?: Array<{ expr: string; legendFormat?: string }> }>;
  };
  return [
    ...rules().map((rule) => ({
      where: `alert ${rule.alert}`,
      expr: rule.expr,
      printed: [
        ...Object.values(rule.annotations ?? {})
          .join(' ')
          .matchAll(/\$labels\.(\w+)/g),
      ].map((m) => m[1]),
    })),
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({
        where: `panel ${panel.title}`,
        expr: target.expr.replace(/\$__rate_interval/g, '5m'),
        printed: [...(target.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]),
      })),
    ),
    ...dashboard.templating.list
      .filter((variable) => variable.type === 'query')
      .map((variable) => {
        const [, selector, label] = /^label_values\((.*),\s*(\w+)\)$/.exec(variable.definition ?? '') ?? [];
        return { where: `variable ${variable.name}`, expr: selector ?? '', printed: [label] };
      }),
  ];
}

/** The label names of a metric a process exports (its `# TYPE`) without any series yet, for each such process. */
function declaredOnly(metric: string, targets: Map<Process, Labels>): string[][] {
  return PROCESSES.flatMap((process) => {
    const { types } = scrapes[1][process].exposition.types.size > 0 ? scrapes[1][process].exposition : scrapes[0][process].exposition;
    const family = familyOf(metric, types);
    if (!types.has(family)) return [];
    const declared = (metricsRegistry.getSingleMetric(family) as { labelNames?: string[] } | undefined)?.labelNames;
    if (!declared) throw new Error(`${family} is not in this process's registry (import the module that declares it)`);
    return [[...declared, ...Object.keys(targets.get(process)!)]];
  });
}

const CONFIGURATIONS = OVERLAYS.flatMap((overlay) => [
  { overlay, config: 'prometheus-scrape.yml', job: () => plainJob() },
  { overlay, config: 'podmonitor.yaml', job: (namespace: string) => operatorJob(namespace) },
]);

describeWithTools('alerts on scraped series', ['kubectl', 'promtool'], () => {
  beforeAll(runScenario);
  afterAll(async () => {
    await e2e?.stop();
  });

  it.each(CONFIGURATIONS)('overlay $overlay, $config: every label the rules and the dashboard use is on the series they read', ({ overlay, job }) => {
    const namespace = overlayPods(overlay)[0].pod.namespace;
    const { series, targets } = storedSeries(job(namespace), overlay);
    const missing: string[] = [];
    for (const { where, expr, printed } of queries()) {
      const used = [...new Set([...labelNames(expr), ...printed])];
      for (const metric of metricNames(expr)) {
        const stored = series.filter((s) => s.name === metric).map((s) => Object.keys(s.labels));
        // A counter nothing has counted yet (retries, failed handlings: the scenario causes neither) is only its
        // `# TYPE` line: its series will have the labels the process declares for it and its target's labels.
        if (stored.length === 0) stored.push(...declaredOnly(metric, targets));
        if (stored.length === 0) missing.push(`${where}: no process exports ${metric}`);
        for (const label of used) {
          // A histogram's `le` is on its buckets only; `histogram_quantile` reads it from them.
          if (label === 'le' && !metric.endsWith('_bucket')) continue;
          if (stored.length > 0 && !stored.some((names) => names.includes(label))) missing.push(`${where}: ${metric} has no ${label}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(CONFIGURATIONS)('overlay $overlay, $config: promtool fires exactly the alerts the scenario raises, with their labels', ({ overlay, job }) => {
    const namespace = overlayPods(overlay)[0].pod.namespace;
    const { series, targets } = storedSeries(job(namespace), overlay);
    const [first, second] = scrapes;
    expect([first.community.up, second.community.up, second.gateway.up, second.notifications.up]).toEqual([1, 0, 1, 1]);

    const deadLettered = second.notifications.exposition.samples.filter((s) => s.name === 'binzip_events_dead_lettered_total');
    expect(deadLettered).toHaveLength(1);
    const faults = second.gateway.exposition.samples.filter((s) => s.name === 'binzip_gateway_upstream_faults_total' && s.labels.service === 'community');
    const faultKinds = faults
      .filter(
        (s) =>
          s.value -
            (first.gateway.exposition.samples.find((b) => b.name === s.name && b.labels.kind === s.labels.kind && b.labels.service === 'community')?.value ??
              0) >
          30,
      )
      .map((s) => s.labels.kind);
    expect(faultKinds.length).toBeGreaterThan(0);
    const { stream, consumer, reason } = deadLettered[0].labels;
    const firing = (alertname: string, severity: string, labels: Labels) => ({
      labels: seriesText('ALERTS', { alertname, alertstate: 'firing', severity, ...labels }),
      value: 1,
    });
    const expected = [
      firing('BinzipEventsDeadLettered', 'warning', { namespace, stream, consumer, reason }),
      firing('BinzipGateway5xxRate', 'critical', { namespace, service: 'community' }),
      ...faultKinds.map((kind) => firing('BinzipUpstreamFaults', 'warning', { namespace, service: 'community', kind })),
      firing('BinzipTargetDown', 'critical', targets.get('community')!),
    ];
    // The labels every alert above must carry come from the scrape: the namespace of the overlay, the component.
    expect(targets.get('community')).toMatchObject({ namespace, component: 'community' });

    const dir = mkdtempSync(path.join(os.tmpdir(), 'scraped-alerts-'));
    try {
      writeFileSync(path.join(dir, 'alerts.yml'), readFileSync(path.join(OBSERVABILITY, 'alerts.yml'), 'utf8'));
      const tests = {
        rule_files: ['alerts.yml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: series.map((s) => ({ series: seriesText(s.name, s.labels), values: s.values })),
            promql_expr_test: [{ expr: 'ALERTS{alertstate="firing"}', eval_time: `${MINUTES - 5}m`, exp_samples: expected }],
          },
        ],
      };
      writeFileSync(path.join(dir, 'scraped.test.yml'), stringifyYaml(tests, { lineWidth: 0 }));
      let output: string;
      try {
        output = execFileSync('promtool', ['test', 'rules', 'scraped.test.yml'], { cwd: dir, encoding: 'utf8' });
      } catch (err) {
        output = String((err as { stdout?: string }).stdout) + String((err as { stderr?: string }).stderr);
      }
      expect(output).toMatch(/SUCCESS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
