import path from 'node:path';
import type { ApiDocument } from '@binzip/shared';
import { SERVICE_NAMES, type ServiceName } from '../../services/gateway/src/proxy/upstreams';

/** What every service's `src/routes/index.ts` exports (docs/conventions.md), as the scripts read it. */
export interface ServiceRoutes {
  operations: ReadonlyArray<{ method: string; path: string; access: 'public' | 'optional' | 'user' | 'admin'; ignoresAuthorization?: boolean }>;
  apiDocument(): ApiDocument;
  /** Routes answered by a long-lived stream (only notifications has one today). */
  longLivedRoutes?: ReadonlyArray<{ method: string; path: string }>;
}

/**
 * Each service's routes module, in the order of the one list of services (`SERVICE_PORTS`): the scripts that need
 * every service's operations (the API document, the gateway's declared access and routes) load them by name from
 * there, so a new service is not written into each of them.
 */
export function serviceRoutes(): Array<{ name: ServiceName; routes: ServiceRoutes }> {
  return SERVICE_NAMES.map((name) => ({
    name,
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the list's names, not written per service
    routes: require(path.join(__dirname, '..', '..', 'services', name, 'src', 'routes')) as ServiceRoutes,
  }));
}

/** A path's fixed segments: those before its first parameter, lower-cased (the gateway matches case-insensitively). */
const fixedSegments = (template: string): string[] => {
  const segments = template.toLowerCase().split('/').filter(Boolean);
  const parameter = segments.findIndex((segment) => segment.includes('{'));
  return parameter < 0 ? segments : segments.slice(0, parameter);
};
const startsWith = (segments: readonly string[], prefix: readonly string[]) => prefix.length <= segments.length && prefix.every((s, i) => segments[i] === s);

/**
 * The gateway's routing table, derived from the operations: for each operation, the shortest prefix of its fixed
 * segments (at least `/api/v1/<area>`) that no other service's operation starts with; the same prefix of one
 * service is written once. Longest first, so a deeper prefix (`/api/v1/admin/stats/houses`) wins over a shorter one.
 */
export function routePrefixes(services: ReadonlyArray<{ name: string; paths: readonly string[] }>): Array<readonly [string, string]> {
  const all = services.flatMap(({ name, paths }) => paths.map((template) => ({ name, segments: fixedSegments(template) })));
  const prefixes = new Map<string, string>();
  for (const { name, segments } of all) {
    let length = Math.min(3, segments.length);
    while (length < segments.length && all.some((other) => other.name !== name && startsWith(other.segments, segments.slice(0, length)))) length += 1;
    const prefix = `/${segments.slice(0, length).join('/')}`;
    const owner = prefixes.get(prefix);
    if (owner && owner !== name) throw new Error(`gateway routes: ${prefix} is both ${owner}'s and ${name}'s`);
    prefixes.set(prefix, name);
  }
  return [...prefixes].sort(([a], [b]) => b.split('/').length - a.split('/').length || a.localeCompare(b)).map(([prefix, name]) => [prefix, name] as const);
}
