/**
 * Scaled out in containers (issue 37, step 2): `REPLICAS=2 HOUSES_INSTANCES=3 NATS_NODES=3 npm run containers:up`
 * runs two of every service, three of houses, two gateways and three NATS nodes, each container with its own
 * address and a name that says what it runs; both gateways answer, find every copy of a service by its name, and
 * share one state: a member signed up through one gateway writes through the other, and a comment made through the
 * first reaches the author's inbox read through the second. Every stream is kept on all three NATS nodes.
 * Run with `npm run test:containers` (it reuses the images of containers.test.ts, or builds them).
 */
import { rmSync } from 'node:fs';
import { containersDown, containersUp, projectContainers, run, type ContainersSettings } from '../../scripts/lib/containers';
import { freePort } from '../../scripts/lib/server-process';
import { describeWithTools } from '../support/deploy';
import { eventually, gatewayClient, settingsFor } from './helpers';

jest.setTimeout(60 * 60_000);

const OPERATOR_TOKEN = 'replicas-test-operator-token';

describeWithTools('the system scaled out in containers (podman, docker-compose)', ['podman', 'docker-compose'], () => {
  let settings: ContainersSettings;
  let dataDir: string;
  let urls: string[] = [];
  const through = (gateway: number) =>
    gatewayClient(
      () => urls[gateway],
      () => dataDir,
    );

  beforeAll(async () => {
    const port = await freePort('127.0.0.1');
    ({ settings, dataDir } = settingsFor(
      'rep',
      {
        REPLICAS: '2',
        HOUSES_INSTANCES: '3',
        NATS_NODES: '3',
        GATEWAY_2_PORT: String(await freePort('127.0.0.1')),
        METRICS_TOKEN: OPERATOR_TOKEN,
        VERIFICATION_CODE_DIGITS: '6',
      },
      port,
    ));
    ({ urls } = await containersUp(settings, { readyTimeoutMs: 600_000 }));
  });

  afterAll(async () => {
    if (settings) await containersDown(settings, { volumes: true });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs two of every service, three of houses, two gateways and three NATS nodes, each named for what it runs', async () => {
    expect(urls).toEqual([`http://127.0.0.1:${settings.port}`, `http://127.0.0.1:${settings.scale.gateway2Port}`]);
    const running = (await projectContainers(settings.project)).filter((c) => c.status === 'running');
    const counts: Record<string, number> = {};
    for (const c of running) {
      counts[c.service] = (counts[c.service] ?? 0) + 1;
      expect(c.name).toContain(c.service);
    }
    expect(counts).toEqual({
      gateway: 1,
      'gateway-2': 1,
      accounts: 2,
      community: 2,
      houses: 3,
      records: 2,
      notifications: 2,
      nats: 1,
      'nats-2': 1,
      'nats-3': 1,
      mongo: 1,
    });
  });

  it('each gateway finds every copy of each service by its name and sees them all up', async () => {
    for (const url of urls) {
      const instances = await eventually(async () => {
        const res = await fetch(`${url}/ready`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
        const body = (await res.json()) as { data?: { instances?: Record<string, Array<{ url: string; up: boolean }>> } };
        const found = body.data?.instances;
        const upCount = (name: string) => found?.[name]?.filter((i) => i.up).length ?? 0;
        return found && upCount('houses') === 3 && ['accounts', 'community', 'records', 'notifications'].every((n) => upCount(n) === 2) ? found : undefined;
      }, 60_000);
      // Addresses, not the name: one per container.
      expect(new Set(instances.houses.map((i) => i.url)).size).toBe(3);
    }
  });

  it('both gateways serve one system: a member signed up through one writes through the other, and the notice of a comment made through the first is read through the second', async () => {
    const suffix = String(process.pid % 10_000).padStart(4, '0');
    const author = await through(0).signUp(`repauthor${suffix}`, `0105555${suffix}`, `repauthor${suffix}@example.com`);
    const reader = await through(1).signUp(`repreader${suffix}`, `0106666${suffix}`, `repreader${suffix}@example.com`);
    const boardId = await through(1).ok<number>(
      'POST',
      '/api/v1/boards',
      { title: '두 게이트웨이', code: '<p>빈집</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
      author,
    );
    const contents = Array.from({ length: 6 }, (_, i) => `copies-${suffix}-${i}`);
    // Alternately through both gateways, so the comments land on different copies of community.
    for (const [i, content] of contents.entries()) await through(i % 2).ok('POST', '/api/v1/comments', { boardId, content }, reader);
    const inbox = async (gateway: number) =>
      (
        await through(gateway).ok<{ notifications: { content: Array<{ content?: string; comment?: string }> } }>(
          'GET',
          '/api/v1/notifications?size=50',
          undefined,
          author,
        )
      ).notifications.content.map((n) => String(n.content ?? n.comment ?? ''));
    // Each comment gave exactly one notice, whichever copy of notifications consumed it.
    const seen = await eventually(async () => {
      const ours = (await inbox(1)).filter((c) => contents.includes(c));
      return ours.length >= contents.length ? ours : undefined;
    }, 90_000);
    expect(seen.sort()).toEqual([...contents].sort());
    expect((await inbox(0)).filter((c) => contents.includes(c)).sort()).toEqual([...contents].sort());
  });

  it('every stream is kept on all three NATS nodes (NATS_REPLICAS=3)', async () => {
    for (const node of ['nats', 'nats-2', 'nats-3']) {
      const [container] = (await projectContainers(settings.project)).filter((c) => c.service === node);
      const res = await run('podman', ['exec', container.name, 'wget', '-q', '-O', '-', 'http://127.0.0.1:8222/jsz?streams=true&config=true']);
      expect(res.code).toBe(0);
      const jsz = JSON.parse(res.stdout) as {
        streams: number;
        account_details?: Array<{ stream_detail?: Array<{ name: string; config?: { num_replicas: number }; cluster?: { replicas?: unknown[] } }> }>;
      };
      const streams = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []);
      expect(streams.length).toBeGreaterThan(0);
      for (const stream of streams) expect({ name: stream.name, replicas: stream.config?.num_replicas }).toEqual({ name: stream.name, replicas: 3 });
    }
  });
});
