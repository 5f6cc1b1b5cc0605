/**
 * What Prometheus does between a pod and a stored series, for tests of deploy/observability/: the meta labels of
 * Kubernetes pod discovery, relabelling, the labels a scrape attaches to every sample, the text exposition format,
 * and the scrape job the Prometheus operator generates for a PodMonitor. Only what binzip's configurations use: an
 * action or field they do not use fails loudly instead of being ignored.
 */

export type Labels = Record<string, string>;

/** A `relabel_configs` entry (the operator's `relabelings` use the same fields in camelCase). */
export interface RelabelRule {
  source_labels?: string[];
  separator?: string;
  regex?: string;
  target_label?: string;
  replacement?: string;
  action?: string;
}

/** Prometheus' relabelling of one label set: undefined when a `keep`/`drop` rule drops it. */
export function relabel(labels: Labels, rules: RelabelRule[]): Labels | undefined {
  const current = { ...labels };
  for (const rule of rules) {
    const action = rule.action ?? 'replace';
    const value = (rule.source_labels ?? []).map((name) => current[name] ?? '').join(rule.separator ?? ';');
    // Prometheus anchors every relabelling regex.
    const match = new RegExp(`^(?:${rule.regex ?? '(.*)'})$`).exec(value);
    if (action === 'keep') {
      if (!match) return undefined;
    } else if (action === 'drop') {
      if (match) return undefined;
    } else if (action === 'replace') {
      if (!match || rule.target_label === undefined) continue;
      const result = (rule.replacement ?? '$1').replace(/\$(?:\{(\w+)\}|(\w+))/g, (_, braced?: string, bare?: string) => match[Number(braced ?? bare)] ?? '');
      if (result === '') delete current[rule.target_label];
      else current[rule.target_label] = result;
    } else {
      throw new Error(`relabel action ${action} is not modelled here`);
    }
  }
  return current;
}

/** Kubernetes' label or annotation name as a discovery meta label name (`app.kubernetes.io/name` -> `app_kubernetes_io_name`). */
export const metaName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

export interface DiscoveredPod {
  namespace: string;
  name: string;
  ip: string;
  labels: Labels;
  annotations: Labels;
  containers: Array<{ name: string; ports?: Array<{ name?: string; containerPort: number; protocol?: string }> }>;
}

/** The targets `kubernetes_sd_configs: [{ role: pod }]` gives for a running pod: one per declared container port. */
export function podTargets(pod: DiscoveredPod): Labels[] {
  const common: Labels = {
    __meta_kubernetes_namespace: pod.namespace,
    __meta_kubernetes_pod_name: pod.name,
    __meta_kubernetes_pod_ip: pod.ip,
    __meta_kubernetes_pod_ready: 'true',
    __meta_kubernetes_pod_phase: 'Running',
  };
  for (const [name, value] of Object.entries(pod.labels)) {
    common[`__meta_kubernetes_pod_label_${metaName(name)}`] = value;
    common[`__meta_kubernetes_pod_labelpresent_${metaName(name)}`] = 'true';
  }
  for (const [name, value] of Object.entries(pod.annotations)) {
    common[`__meta_kubernetes_pod_annotation_${metaName(name)}`] = value;
    common[`__meta_kubernetes_pod_annotationpresent_${metaName(name)}`] = 'true';
  }
  return pod.containers.flatMap((container) =>
    (container.ports ?? []).map((port) => ({
      ...common,
      __address__: `${pod.ip}:${port.containerPort}`,
      __meta_kubernetes_pod_container_name: container.name,
      __meta_kubernetes_pod_container_port_name: port.name ?? '',
      __meta_kubernetes_pod_container_port_number: String(port.containerPort),
      __meta_kubernetes_pod_container_port_protocol: port.protocol ?? 'TCP',
    })),
  );
}

export interface ScrapeJob {
  job_name: string;
  metrics_path?: string;
  relabel_configs?: RelabelRule[];
}

/**
 * A discovered target's labels after the job's relabelling (Prometheus' PopulateLabels): `job`, `__metrics_path__`
 * and `__scheme__` set first, `instance` defaulting to the address, the `__` labels removed. Undefined when dropped.
 */
export function targetLabels(job: ScrapeJob, discovered: Labels): Labels | undefined {
  const relabelled = relabel(
    { job: job.job_name, __metrics_path__: job.metrics_path ?? '/metrics', __scheme__: 'http', ...discovered },
    job.relabel_configs ?? [],
  );
  if (!relabelled?.__address__) return undefined;
  relabelled.instance ??= relabelled.__address__;
  return Object.fromEntries(Object.entries(relabelled).filter(([name]) => !name.startsWith('__')));
}

export interface PodMonitor {
  metadata: { name: string };
  spec: {
    selector: { matchLabels: Labels };
    podMetricsEndpoints: Array<{
      port: string;
      path?: string;
      relabelings?: Array<{ sourceLabels?: string[]; targetLabel?: string; regex?: string; replacement?: string; action?: string; separator?: string }>;
    }>;
  };
}

/**
 * The scrape job the Prometheus operator generates for a PodMonitor endpoint in `namespace` (prometheus-operator
 * pkg/prometheus/promcfg.go, generatePodMonitorConfig): pods kept by the selector's labels and the endpoint's port
 * name, `namespace`, `container` and `pod` set from discovery, `job` as `<namespace>/<name>`, `endpoint` as the port
 * name, then the PodMonitor's own relabelings (sharding left out: one Prometheus).
 */
export function podMonitorJob(monitor: PodMonitor, namespace: string, index = 0): ScrapeJob {
  const endpoint = monitor.spec.podMetricsEndpoints[index];
  const selectors: RelabelRule[] = Object.entries(monitor.spec.selector.matchLabels).map(([name, value]) => ({
    action: 'keep',
    source_labels: [`__meta_kubernetes_pod_label_${metaName(name)}`, `__meta_kubernetes_pod_labelpresent_${metaName(name)}`],
    regex: `(${value});true`,
  }));
  return {
    job_name: `podMonitor/${namespace}/${monitor.metadata.name}/${index}`,
    metrics_path: endpoint.path ?? '/metrics',
    relabel_configs: [
      ...selectors,
      { action: 'keep', source_labels: ['__meta_kubernetes_pod_container_port_name'], regex: endpoint.port },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
      { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
      { target_label: 'job', replacement: `${namespace}/${monitor.metadata.name}` },
      { target_label: 'endpoint', replacement: endpoint.port },
      ...(endpoint.relabelings ?? []).map(({ sourceLabels, targetLabel, ...rest }) => ({ source_labels: sourceLabels, target_label: targetLabel, ...rest })),
    ],
  };
}

export interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** `# TYPE` of each metric family (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
}

/** Prometheus' text exposition format (what `/metrics` answers). */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Labels = {};
    for (const [, name, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name] = value.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    }
    samples.push({ name: sample[1], labels, value: Number(sample[3].replace(/^\+Inf$/, 'Infinity').replace(/^-Inf$/, '-Infinity')) });
  }
  return { samples, types };
}

/** The metric family a sample belongs to (a histogram's `_bucket`, `_sum` and `_count` belong to it). */
export function familyOf(name: string, types: Map<string, string>): string {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return types.has(name) ? name : types.has(base) ? base : name;
}

/**
 * A scraped sample as Prometheus stores it: the target's labels attached, a sample label the target also has kept
 * as `exported_<name>` (`honor_labels: false`, the default).
 */
export function attachTargetLabels(sample: Labels, target: Labels): Labels {
  const stored: Labels = {};
  for (const [name, value] of Object.entries(sample)) stored[name in target ? `exported_${name}` : name] = value;
  return { ...stored, ...target };
}

/** A series selector as promtool's `input_series` and PromQL write it. */
export const seriesText = (name: string, labels: Labels) =>
  `${name}{${Object.entries(labels)
    .map(([label, value]) => `${label}=${JSON.stringify(value)}`)
    .join(',')}}`;

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: identifiers outside label matchers, strings and ranges, not calls. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[A-Za-z_:][\w:]*/g)) {
    const [name] = match;
    const next = bare.slice((match.index ?? 0) + name.length).trimStart();
    if (next.startsWith('(') || PROMQL_WORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** The label names a PromQL expression groups, joins or filters by (`by (...)`, `on (...)`, matchers). */
export function labelNames(expr: string): string[] {
  const names = new Set<string>();
  const unquoted = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const [, list] of unquoted.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    for (const name of list.split(',').map((part) => part.trim())) if (name) names.add(name);
  }
  for (const [, matchers] of unquoted.matchAll(/\{([^}]*)\}/g)) {
    for (const [, name] of matchers.matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)) names.add(name);
  }
  return [...names];
}
