/**
 * Where a run's slowest requests spent their time, read from their traces (`bench:site --spans`, issue 42): for
 * each of the slowest requests, the gateway's time before and after the service, the store commands on the
 * service's answer path (overlapping ones counted once) and the service's own work around them; then which kinds
 * of request made the tail and which store commands they waited for. The outbox's publishing and the consumers'
 * work after an answer are in the same traces but not on the answer's path, so they are left out.
 */
import { SERVER_SPAN, type ReceivedSpan } from './otlp-receiver';

export interface Window {
  fromUs: number;
  toUs: number;
}

interface Parts {
  gatewayBefore: number;
  service: number;
  store: number;
  gatewayAfter: number;
}

const PART_NAMES: Record<keyof Parts, string> = {
  gatewayBefore: 'gateway before the service',
  service: "the service's own work",
  store: 'store commands',
  gatewayAfter: 'gateway after the service',
};

const isStoreCommand = (span: ReceivedSpan): boolean => span.attributes['db.system.name'] === 'mongodb';

/** The length of the union of intervals: parallel commands are waited for once. */
function coveredUs(intervals: Array<[number, number]>): number {
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (from > end) total += to - from;
    else if (to > end) total += to - end;
    end = Math.max(end, to);
  }
  return total;
}

/** The `count` entries with the largest `by`. */
function largest<T>(entries: ReadonlyMap<string, T>, by: (value: T) => number, count: number): Array<[string, T]> {
  return [...entries].sort((a, b) => by(b[1]) - by(a[1])).slice(0, count);
}

const ms = (us: number): string => (us / 1000).toFixed(1);
const percent = (part: number, whole: number): string => `${whole > 0 ? Math.round((100 * part) / whole) : 0} %`;

/** Lines describing the slowest `share` of the requests the gateway received within the windows. */
export function describeTail(spans: readonly ReceivedSpan[], windows: readonly Window[], share = 0.03): string[] {
  const byTrace = new Map<string, ReceivedSpan[]>();
  for (const span of spans) {
    const trace = byTrace.get(span.traceId);
    if (trace) trace.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  const requests = spans.filter((s) => s.service === 'gateway' && s.kind === SERVER_SPAN && windows.some((w) => s.startUs >= w.fromUs && s.startUs < w.toUs));
  if (requests.length === 0) return ['no traced requests in this run (is tracing on in this build?)'];
  const slowest = [...requests].sort((a, b) => b.endUs - b.startUs - (a.endUs - a.startUs)).slice(0, Math.max(1, Math.ceil(requests.length * share)));
  const totals: Parts = { gatewayBefore: 0, service: 0, store: 0, gatewayAfter: 0 };
  const kinds = new Map<string, number>();
  const commands = new Map<string, { us: number; count: number }>();
  for (const request of slowest) {
    const trace = byTrace.get(request.traceId) ?? [];
    const served = trace.find((s) => s.service !== 'gateway' && s.kind === SERVER_SPAN);
    const kind = served?.name ?? `${request.name} (from the gateway)`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (!served) {
      totals.gatewayBefore += request.endUs - request.startUs;
      continue;
    }
    const onPath = trace.filter((s) => isStoreCommand(s) && s.service === served.service && s.startUs < served.endUs);
    const store = coveredUs(onPath.map((s) => [Math.max(s.startUs, served.startUs), Math.min(s.endUs, served.endUs)]));
    totals.gatewayBefore += Math.max(0, served.startUs - request.startUs);
    totals.gatewayAfter += Math.max(0, request.endUs - served.endUs);
    totals.store += store;
    totals.service += Math.max(0, served.endUs - served.startUs - store);
    for (const command of onPath) {
      const key = `${command.service} ${String(command.attributes['db.operation.name'] ?? command.name)} ${String(command.attributes['db.collection.name'] ?? '')}`;
      const entry = commands.get(key) ?? { us: 0, count: 0 };
      entry.us += command.endUs - command.startUs;
      entry.count++;
      commands.set(key, entry);
    }
  }
  const whole = totals.gatewayBefore + totals.service + totals.store + totals.gatewayAfter;
  const durations = slowest.map((s) => s.endUs - s.startUs);
  return [
    `slowest ${slowest.length} of ${requests.length} traced requests (${ms(Math.min(...durations))}-${ms(Math.max(...durations))} ms): ` +
      (Object.keys(totals) as Array<keyof Parts>).map((part) => `${PART_NAMES[part]} ${percent(totals[part], whole)}`).join(', '),
    `  by kind: ${largest(kinds, (n) => n, 8)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}`,
    `  store commands on their paths (ms in all, count): ${largest(commands, (c) => c.us, 8)
      .map(([key, c]) => `${key} ${ms(c.us)} (${c.count})`)
      .join(', ')}`,
  ];
}
