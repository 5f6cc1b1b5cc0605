/**
 * Every deployment description the repository ships, rendered by the operators' own tools into each process's
 * environment and parsed by that process's own config schema: a setting a process refuses (it would restart in a
 * loop) can never ship again.
 */
import { generateDevKeyPair, signingKeyId, tracingEnabled } from '@binzip/shared';
import {
  composeEnvironments,
  configProblems,
  describeWithTools,
  generatedKeyLines,
  OVERLAYS,
  podEnvironments,
  PROCESSES,
  renderCompose,
  renderOverlay,
  type Environment,
  type KubeObject,
  type ProcessName,
} from '../support/deploy';

const SERVICE_PORTS: Record<Exclude<ProcessName, 'gateway'>, string> = {
  accounts: 'ACCOUNTS_URLS',
  community: 'COMMUNITY_URLS',
  houses: 'HOUSES_URLS',
  records: 'RECORDS_URLS',
  notifications: 'NOTIFICATIONS_URLS',
};

/** The gateway reaches every service at the host name and port that service listens on. */
export function expectGatewayReachesServices(environments: Record<ProcessName, Environment>, hostOf: (service: ProcessName) => string): void {
  for (const [service, variable] of Object.entries(SERVICE_PORTS) as Array<[Exclude<ProcessName, 'gateway'>, string]>) {
    const urls = environments.gateway[variable].split(',').map((url) => new URL(url.trim()));
    for (const url of urls) expect(`${service} ${url.hostname}:${url.port}`).toBe(`${service} ${hostOf(service)}:${environments[service].PORT}`);
  }
}

/** Every service reads accounts' revocation feed where accounts listens, with the token accounts answers (issue 34). */
export function expectRevocationFeedReachable(environments: Record<ProcessName, Environment>): void {
  const token = environments.accounts.REVOCATION_FEED_TOKEN;
  expect(token?.length ?? 0).toBeGreaterThanOrEqual(16);
  for (const service of Object.keys(SERVICE_PORTS) as Array<Exclude<ProcessName, 'gateway'>>) {
    expect({ service, token: environments[service].REVOCATION_FEED_TOKEN }).toEqual({ service, token });
    if (service === 'accounts') continue;
    const urls = environments[service].ACCOUNTS_URLS.split(',').map((url) => new URL(url.trim()));
    for (const url of urls) expect(`${service} ${url.hostname}:${url.port}`).toBe(`${service} accounts:${environments.accounts.PORT}`);
  }
}

describeWithTools('docker compose with .env.example', ['docker-compose'], () => {
  const services = renderCompose();
  const environments = composeEnvironments(services);

  it('runs all six processes, and each accepts its environment', () => {
    expect(Object.keys(environments).sort()).toEqual([...PROCESSES].sort());
    for (const process of PROCESSES) expect({ process, problems: configProblems(process, environments[process]) }).toEqual({ process, problems: [] });
  });

  it('has every service listen on all interfaces and the gateway reach each one where it listens', () => {
    for (const process of PROCESSES) expect(`${process} ${environments[process].HOST}`).toBe(`${process} 0.0.0.0`);
    expectGatewayReachesServices(environments, (service) => service);
    expectRevocationFeedReachable(environments);
  });

  it('waits for the drain and the ordered stop before killing a process', () => {
    for (const process of PROCESSES) {
      const graceSeconds = Number(/^(\d+)s$/.exec(services[process].stop_grace_period ?? '10s')?.[1]);
      expect(graceSeconds * 1000).toBeGreaterThanOrEqual(Number(environments[process].SHUTDOWN_DRAIN_MS) + 15_000);
    }
  });

  it('carries a JWKS key set from .env unchanged during a key rotation (npm run keys -- --keep)', () => {
    const rotating = composeEnvironments(renderCompose(generatedKeyLines(`--keep=${environments.gateway.JWT_PUBLIC_KEY}`)));
    for (const process of PROCESSES) expect({ process, problems: configProblems(process, rotating[process]) }).toEqual({ process, problems: [] });
    const set = JSON.parse(rotating.gateway.JWT_PUBLIC_KEY) as { keys: Array<{ kid: string }> };
    expect(set.keys).toHaveLength(2);
    expect(set.keys.map((key) => key.kid)).toContain(signingKeyId(rotating.accounts.JWT_PRIVATE_KEY));
  });

  it('leaves tracing off by default and turns it on in all six processes from one .env line', () => {
    for (const process of PROCESSES) expect({ process, tracing: tracingEnabled(environments[process]) }).toEqual({ process, tracing: false });
    const traced = composeEnvironments(
      renderCompose('OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318\nOTEL_TRACES_SAMPLER=parentbased_traceidratio\nOTEL_TRACES_SAMPLER_ARG=0.25\n'),
    );
    for (const process of PROCESSES) {
      expect({
        process,
        tracing: tracingEnabled(traced[process]),
        sampler: traced[process].OTEL_TRACES_SAMPLER,
        ratio: traced[process].OTEL_TRACES_SAMPLER_ARG,
      }).toEqual({
        process,
        tracing: true,
        sampler: 'parentbased_traceidratio',
        ratio: '0.25',
      });
    }
  });

  it('would catch a setting the gateway refuses (the CORS_ORIGINS=* that once shipped)', () => {
    const refused = composeEnvironments(renderCompose('CORS_ORIGINS=*\n'));
    expect(configProblems('gateway', refused.gateway)).toEqual([expect.stringMatching(/^CORS_ORIGINS\.0: /)]);
  });
});

/** What the runbook has an operator create beside the overlay: the JWT keys, and what MongoDB's operator writes. */
function operatorSecrets(): KubeObject[] {
  const keys = generateDevKeyPair();
  const secret = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: data });
  return [
    secret('binzip-jwt', { JWT_PUBLIC_KEY: keys.publicKey, JWT_PRIVATE_KEY: keys.privateKey }),
    secret('binzip-metrics', { METRICS_TOKEN: 'a-scrape-token-of-the-operators' }),
    secret('binzip-revocation-feed', { REVOCATION_FEED_TOKEN: 'a-feed-token-of-the-operators' }),
    secret('binzip-mongodb-admin-binzip', {
      'connectionString.standard':
        'mongodb://binzip:secret@binzip-mongodb-0.binzip-mongodb-svc.binzip.svc.cluster.local:27017/admin?replicaSet=binzip-mongodb&ssl=false',
    }),
  ];
}

describeWithTools('Kubernetes overlays', ['kubectl'], () => {
  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    const objects = renderOverlay(overlay);
    const environments = podEnvironments(objects, operatorSecrets());

    it('runs all six processes, and each accepts its environment', () => {
      expect(Object.keys(environments).sort()).toEqual([...PROCESSES].sort());
      for (const process of PROCESSES) expect({ process, problems: configProblems(process, environments[process]) }).toEqual({ process, problems: [] });
    });

    it('has the gateway reach each service at its Service name and the port the service listens on', () => {
      for (const process of PROCESSES) expect(`${process} ${environments[process].HOST}`).toBe(`${process} 0.0.0.0`);
      expectGatewayReachesServices(environments, (service) => service);
      expectRevocationFeedReachable(environments);
      for (const service of objects.filter((object) => object.kind === 'Service')) {
        const name = service.metadata.name as ProcessName;
        expect([name, (service.spec as { ports: Array<{ port: number }> }).ports[0].port]).toEqual([name, Number(environments[name].PORT)]);
      }
    });
  });
});
