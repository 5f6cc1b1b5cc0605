/**
 * The routing table (architecture.md) and the pools behind it. A pool spreads requests round robin over
 * its URLs and skips an instance that refused a connection or failed its health probe, until it answers
 * again — so houses can be scaled on its own.
 */
export const SERVICE_NAMES = ['accounts', 'community', 'houses', 'records', 'notifications'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const ROUTES: ReadonlyArray<{ prefix: string; service: ServiceName }> = [
  { prefix: '/api/v1/users', service: 'accounts' },
  { prefix: '/api/v1/agents', service: 'accounts' },
  { prefix: '/api/v1/boards', service: 'community' },
  { prefix: '/api/v1/comments', service: 'community' },
  { prefix: '/api/v1/loves', service: 'community' },
  { prefix: '/api/v1/houses', service: 'houses' },
  { prefix: '/api/v1/scraps', service: 'houses' },
  { prefix: '/api/v1/record_review', service: 'records' },
  { prefix: '/api/v1/record_comment', service: 'records' },
  { prefix: '/api/v1/record_category', service: 'records' },
  { prefix: '/api/v1/record', service: 'records' },
  { prefix: '/api/v1/notifications', service: 'notifications' },
  // The administrators' API (../shared/design/backoffice.md).
  { prefix: '/api/v1/admin/users', service: 'accounts' },
  { prefix: '/api/v1/admin/withdrawals', service: 'accounts' },
  { prefix: '/api/v1/admin/stats/users', service: 'accounts' },
  { prefix: '/api/v1/admin/reports', service: 'houses' },
  { prefix: '/api/v1/admin/stats/houses', service: 'houses' },
  { prefix: '/api/v1/admin/boards', service: 'community' },
];

/** The service owning a path: the prefix must end at a segment boundary (`/api/v1/records` is nobody's). */
export function serviceFor(path: string): ServiceName | undefined {
  for (const route of ROUTES) {
    if (path === route.prefix || path.startsWith(`${route.prefix}/`) || path.startsWith(`${route.prefix}?`)) return route.service;
  }
  return undefined;
}

const DOWN_FOR_MS = 5_000;

export class UpstreamPool {
  private next = 0;
  private readonly downUntil = new Map<string, number>();

  constructor(
    readonly service: ServiceName,
    readonly urls: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Next instance in turn that is not marked down; when all are down, still the next one (it may be back). */
  pick(exclude: ReadonlySet<string> = new Set()): string | undefined {
    const candidates = this.urls.filter((url) => !exclude.has(url));
    if (candidates.length === 0) return undefined;
    const healthy = candidates.filter((url) => (this.downUntil.get(url) ?? 0) <= this.now());
    const from = healthy.length > 0 ? healthy : candidates;
    const url = from[this.next % from.length];
    this.next = (this.next + 1) % Number.MAX_SAFE_INTEGER;
    return url;
  }

  markDown(url: string): void {
    this.downUntil.set(url, this.now() + DOWN_FOR_MS);
  }

  markUp(url: string): void {
    this.downUntil.delete(url);
  }

  isDown(url: string): boolean {
    return (this.downUntil.get(url) ?? 0) > this.now();
  }
}

export type Pools = Record<ServiceName, UpstreamPool>;

export function createPools(urls: Record<ServiceName, readonly string[]>): Pools {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, new UpstreamPool(name, urls[name])])) as Pools;
}

/** Probes every instance's `/health`; the result feeds both routing and the gateway's `/ready`. */
export async function probe(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
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
      pools[service].urls.map(async (url) => {
        const up = await probe(url, timeoutMs);
        results[url] = up;
        if (up) pools[service].markUp(url);
        else pools[service].markDown(url);
      }),
    ),
  );
  return results;
}
