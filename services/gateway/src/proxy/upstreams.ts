import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { DECLARED_ROUTES } from './declared-access';

/**
 * The services of the system and the port each listens on by default, written once: the gateway's pools and
 * upstream settings (`<NAME>_URLS`), the launcher (scripts/lib/system.ts: `npm start`, the end-to-end tests, the
 * benchmarks) and the preflight derive from it, and test/deploy/service-list.test.ts checks that the compose file,
 * the Kubernetes manifests, the Dockerfile and the workspaces name the same services.
 */
export const SERVICE_PORTS = { accounts: 7001, community: 7002, houses: 7003, records: 7004, notifications: 7005 } as const;
export type ServiceName = keyof typeof SERVICE_PORTS;
export const SERVICE_NAMES = Object.keys(SERVICE_PORTS) as ServiceName[];
/** The gateway's setting naming a service's instances (`HOUSES_URLS`). */
export type UpstreamSetting = `${Uppercase<ServiceName>}_URLS`;
export const upstreamSetting = (name: ServiceName): UpstreamSetting => `${name.toUpperCase() as Uppercase<ServiceName>}_URLS`;

/**
 * The routing table (architecture.md): which service owns which path prefix, derived from the operations the
 * services declare (`DECLARED_ROUTES`, written by `npm run client:types`), longest prefix first.
 */
export const ROUTES: ReadonlyArray<{ prefix: string; service: ServiceName }> = DECLARED_ROUTES.map(([prefix, service]) => {
  if (!Object.hasOwn(SERVICE_PORTS, service)) throw new Error(`gateway routes: ${prefix} belongs to ${service}, which is not in SERVICE_PORTS`);
  return { prefix, service: service as ServiceName };
});

/**
 * The pools behind the routes: a pool spreads requests round robin over its instances and skips one that refused
 * a connection or failed its health probe, until it answers again — so houses can be scaled on its own.
 */

/**
 * The route owning a path, matched case-insensitively (the prefix is the fixed part of every path behind it);
 * the prefix must end at a segment boundary (`/api/v1/records` is nobody's).
 */
export function routeFor(path: string): { prefix: string; service: ServiceName } | undefined {
  if (path.slice(0, 5).toLowerCase() !== '/api/') return undefined;
  const lower = path.toLowerCase();
  for (const route of ROUTES) {
    if (lower.startsWith(route.prefix) && (lower.length === route.prefix.length || lower[route.prefix.length] === '/' || lower[route.prefix.length] === '?'))
      return route;
  }
  return undefined;
}

export function serviceFor(path: string): ServiceName | undefined {
  return routeFor(path)?.service;
}

const DOWN_FOR_MS = 5_000;

/** Resolves a host name to every address it has (injected in tests: one name, several addresses). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true })).map((entry) => entry.address);

function expand(url: string, addresses: readonly string[]): string[] {
  return addresses.map((address) => {
    const expanded = new URL(url);
    expanded.hostname = address.includes(':') ? `[${address}]` : address;
    return expanded.origin;
  });
}

export class UpstreamPool {
  private next = 0;
  private readonly downUntil = new Map<string, number>();
  private readonly downListeners = new Set<(url: string) => void>();
  /** The instances requests go to: the configured URLs, each host name replaced by every address it resolves to. */
  private current: string[];
  /** The last addresses each configured URL resolved to. */
  private readonly expansions = new Map<string, string[]>();

  constructor(
    readonly service: ServiceName,
    /** As configured (host names included). */
    readonly urls: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    this.current = [...urls];
  }

  get instances(): readonly string[] {
    return this.current;
  }

  /**
   * Re-resolves every configured host name, so replicas that a name stands for (compose `--scale`, a headless
   * service) each get their share: a keep-alive agent keyed on the name would stick to one address.
   * A name that fails to resolve keeps its previous addresses.
   */
  async refresh(resolve: Resolver): Promise<void> {
    const lists = await Promise.all(
      this.urls.map(async (url) => {
        const { hostname } = new URL(url);
        const bare = hostname.replace(/^\[|\]$/g, '');
        if (isIP(bare)) return [url];
        try {
          const addresses = [...new Set(await resolve(bare))].sort();
          if (addresses.length > 0) {
            const expanded = expand(url, addresses);
            this.expansions.set(url, expanded);
            return expanded;
          }
        } catch {
          // keep what was known
        }
        return this.expansions.get(url) ?? [url];
      }),
    );
    const next = [...new Set(lists.flat())];
    if (next.join() !== this.current.join()) this.current = next;
  }

  /**
   * Next instance in turn that is not marked down; when all are down, still the next one (it may be back).
   * With an `affinity` key (an anonymous read's path), the instance that key hashes to instead (rendezvous
   * hashing): every gateway sends the same answer to the same replica, so each cacheable answer is computed
   * and kept once across the replicas rather than once per replica, and a replica that comes or goes moves only
   * its own share of the keys (issue 37: with one cache each, three houses replicas cost 3.7x the CPU per request).
   * Given the instances' `load` (requests in flight), the key's instance is passed over while it holds its
   * bounded share (`boundedLoad`), for the next by the same hash: a hot key spills instead of pinning one replica.
   */
  pick(exclude: ReadonlySet<string> = new Set(), affinity?: string, load?: (url: string) => number): string | undefined {
    const candidates = exclude.size === 0 ? this.current : this.current.filter((url) => !exclude.has(url));
    if (candidates.length === 0) return undefined;
    const now = this.now();
    const healthy = this.downUntil.size === 0 ? candidates : candidates.filter((url) => (this.downUntil.get(url) ?? 0) <= now);
    const from = healthy.length > 0 ? healthy : candidates;
    if (affinity !== undefined && from.length > 1) return load ? boundedRendezvous(from, affinity, load) : rendezvous(from, affinity);
    const url = from[this.next % from.length];
    this.next = (this.next + 1) % Number.MAX_SAFE_INTEGER;
    return url;
  }

  /** Whether an instance outside `exclude` is not marked down: somewhere a request could be moved to. */
  hasUpInstance(exclude: ReadonlySet<string>): boolean {
    return this.current.some((url) => !exclude.has(url) && !this.isDown(url));
  }

  markDown(url: string): void {
    const wasDown = this.isDown(url);
    this.downUntil.set(url, this.now() + DOWN_FOR_MS);
    if (!wasDown) for (const listener of this.downListeners) listener(url);
  }

  /**
   * Called when an instance that was up is marked down (its probe failed, or it refused a connection): the
   * forwarder moves the idempotent requests still waiting for that instance's first byte to another one (a frozen
   * replica accepts connections and never answers). Gives the function that removes the listener.
   */
  onDown(listener: (url: string) => void): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  markUp(url: string): void {
    this.downUntil.delete(url);
  }

  isDown(url: string): boolean {
    return (this.downUntil.get(url) ?? 0) > this.now();
  }
}

/** FNV-1a over the key and an instance: a well-spread 32-bit weight, cheap enough for every read. */
function weight(key: string, url: string): number {
  let hash = 0x811c9dc5;
  for (const text of [key, url])
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
  // A final avalanche, so keys differing only in their last characters spread too.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/** The instance with the highest weight for the key (highest random weight hashing). */
function rendezvous(instances: readonly string[], key: string): string {
  let best = instances[0];
  let bestWeight = -1;
  for (const url of instances) {
    const w = weight(key, url);
    if (w > bestWeight) {
      best = url;
      bestWeight = w;
    }
  }
  return best;
}

/**
 * How far above the average load the instance a key hashes to may be before the key spills to the next one
 * (consistent hashing with bounded loads, Mirrokni, Thorup and Zadimoghaddam 2018: ε). 0.5 lets a replica hold half
 * as much again as its fair share of the requests in flight before its keys spill; a smaller ε spreads sooner and
 * so computes more answers on a second replica (docs/decisions-local.md, "Read affinity").
 */
const AFFINITY_LOAD_FACTOR = 1.5;

/**
 * Requests in flight below which an instance keeps its keys whatever the others hold: at a light load the bound
 * alone is 1 (three replicas, one request in flight), and every read arriving while its replica answers another
 * would go to a second replica that computes the answer again (bench:system at 400 req/s: 22 % of the answers
 * computed with three replicas against 18.5 % with one). A replica with a few requests in flight is not queueing.
 */
const AFFINITY_MIN_IN_FLIGHT = 4;

/**
 * The most requests an instance may have in flight and still take a key's request: (1 + ε) times the average with
 * this request counted, rounded up, and at least `AFFINITY_MIN_IN_FLIGHT`. The instances together always have room
 * for it, so a request always finds one.
 */
function boundedLoad(inFlight: number, instances: number): number {
  return Math.max(AFFINITY_MIN_IN_FLIGHT, Math.ceil((AFFINITY_LOAD_FACTOR * (inFlight + 1)) / instances));
}

/** The first instance in the key's rendezvous order (highest weight first) below the bounded load. */
function boundedRendezvous(instances: readonly string[], key: string, load: (url: string) => number): string {
  const loads = instances.map((url) => ({ url, weight: weight(key, url), load: load(url) }));
  const bound = boundedLoad(
    loads.reduce((sum, entry) => sum + entry.load, 0),
    instances.length,
  );
  loads.sort((a, b) => b.weight - a.weight);
  return (loads.find((entry) => entry.load < bound) ?? loads[0]).url;
}

export type Pools = Record<ServiceName, UpstreamPool>;

export function createPools(urls: Record<ServiceName, readonly string[]>): Pools {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, new UpstreamPool(name, urls[name])])) as Pools;
}

export async function refreshPools(pools: Pools, resolve: Resolver): Promise<void> {
  await Promise.all(SERVICE_NAMES.map((name) => pools[name].refresh(resolve)));
}

/**
 * Probes every instance's `/ready`; the result feeds both routing and the gateway's `/ready`. Readiness, not
 * liveness: an instance that is draining before it stops (SIGTERM) or has lost its store answers 503 there, and
 * leaves the rotation while it still serves what reaches it (a broker outage keeps it ready: `DEGRADED`).
 */
export async function probe(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export async function probePools(pools: Pools, timeoutMs: number): Promise<Record<string, boolean>> {
  const results: Record<string, boolean> = {};
  await Promise.all(
    SERVICE_NAMES.flatMap((service) =>
      pools[service].instances.map(async (url) => {
        const up = await probe(url, timeoutMs);
        results[url] = up;
        if (up) pools[service].markUp(url);
        else pools[service].markDown(url);
      }),
    ),
  );
  return results;
}
